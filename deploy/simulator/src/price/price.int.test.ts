import { join } from "node:path";
import { Writable } from "node:stream";
import { type DevnetDeployment, deployDevnet, devnetPriceFeed } from "@platform/devnet";
import { createLogger } from "@platform/log";
import { priceFeedAbi } from "@platform/subtensor";
import { type RunningAnvil, startAnvil, tempDir, waitFor } from "@platform/testing";
import { createTestClient, http } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPriceFeedMover } from "./priceFeedMover.js";
import { startPriceSimulator } from "./startPriceSimulator.js";

// The devnet's coin/USD feed lives on the origin chain; the simulator is its only updater there.
const dir = tempDir("price-simulator");
let anvil: RunningAnvil;
let deployment: DevnetDeployment;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 31337, blockTimeSeconds: 1, logFile: join(dir.path, "origin.log") });
  deployment = await deployDevnet({
    chains: [{ name: "origin", chainId: 31337, rpcUrl: anvil.rpcUrl, roles: ["origin"] }],
  });
}, 60_000);

afterAll(async () => {
  await anvil.stop();
  dir.remove();
});

const options = (seed: string) => ({
  rpcUrl: anvil.rpcUrl,
  simulatorKey: deployment.accounts.simulator.privateKey,
  priceFeed: deployment.chains["origin"]!.contracts.priceFeed!,
  seed,
});

describe("createPriceFeedMover", () => {
  it("submits rounds that walk at most 1% from the previous answer, each mined with its AnswerUpdated", async () => {
    const mover = await createPriceFeedMover(options("walk"));
    const read = () =>
      mover.publicClient.readContract({ address: mover.priceFeed, abi: priceFeedAbi, functionName: "latestRoundData" });
    // The deployment's round: the first test of the file runs before any other round.
    let [roundId, answer] = await read();
    expect([roundId, answer]).toEqual([1n, devnetPriceFeed.initialAnswer]);
    for (let step = 0; step < 3; step++) {
      const round = await mover.submitRound();
      expect(round.roundId).toBe(roundId + 1n);
      const distance = round.answer > answer ? round.answer - answer : answer - round.answer;
      expect(distance * 100n).toBeLessThanOrEqual(answer);
      const [latestId, latestAnswer] = await read();
      expect([latestId, latestAnswer]).toEqual([round.roundId, round.answer]);
      const logs = await mover.publicClient.getContractEvents({
        address: mover.priceFeed,
        abi: priceFeedAbi,
        eventName: "AnswerUpdated",
        fromBlock: round.blockNumber,
        toBlock: round.blockNumber,
      });
      expect(logs.map((log) => [log.args.roundId, log.args.current, log.transactionHash])).toContainEqual([
        round.roundId,
        round.answer,
        round.hash,
      ]);
      [roundId, answer] = [round.roundId, round.answer];
    }
    expect(mover.rounds()).toBe(3);
  });

  it("replays the same answers for the same seed", async () => {
    const testClient = createTestClient({ transport: http(anvil.rpcUrl), mode: "anvil" });
    const checkpoint = await testClient.snapshot();
    const run = async () => {
      const mover = await createPriceFeedMover(options("replay"));
      const answers = [];
      for (let step = 0; step < 3; step++) answers.push((await mover.submitRound()).answer);
      return answers;
    };
    const first = await run();
    await testClient.revert({ id: checkpoint });
    expect(await run()).toEqual(first);
  });
});

describe("startPriceSimulator", () => {
  it("submits rounds on its timer until stopped, without logging the key", async () => {
    const lines: string[] = [];
    const log = createLogger({
      service: "test",
      level: "debug",
      destination: new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }),
    });
    const simulator = await startPriceSimulator({ ...options("timer"), intervalMs: 20, log });
    await waitFor(async () => simulator.mover.rounds() >= 2, { what: "two price rounds", timeoutMs: 30_000 });
    await simulator.stop();
    const rounds = simulator.mover.rounds();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(simulator.mover.rounds()).toBe(rounds);
    expect(lines.some((line) => line.includes("price feed round"))).toBe(true);
    expect(lines.some((line) => line.includes("price feed round failed"))).toBe(false);
    expect(lines.join("")).not.toContain(deployment.accounts.simulator.privateKey.slice(2));
  }, 60_000);
});
