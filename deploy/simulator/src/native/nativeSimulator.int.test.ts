import { join } from "node:path";
import {
  blockEvents,
  connectNativeChain,
  eventName,
  type NativeChain,
  type SeededNativeNetwork,
  startSeededSubtensor,
} from "@platform/devnet";
import { createLogger } from "@platform/log";
import { type RunningChopsticks, tempDir } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { networkRandom } from "../random.js";
import {
  type NativeSimulatorOptions,
  type NativeTick,
  type RunningNativeSimulator,
  startNativeSimulator,
} from "./nativeSimulator.js";

/** The event a successful extrinsic of each kind leaves. */
const EVENT_OF_KIND = {
  transfer: "balances.Transfer",
  stakeAdd: "subtensorModule.StakeAdded",
  stakeRemove: "subtensorModule.StakeRemoved",
  stakeMove: "subtensorModule.StakeMoved",
  register: "subtensorModule.NeuronRegistered",
} as const;

// Warnings (refused or failed calls) on stderr, so a failing run shows what the chain said.
const log = createLogger({ service: "native-simulator-test", level: "warn", destination: process.stderr });
let node: RunningChopsticks;
let chain: NativeChain;
let seeded: SeededNativeNetwork;

beforeAll(async () => {
  ({ node, seeded } = await startSeededSubtensor({ logFile: join(tempDir("native-simulator").path, "node.log") }));
  chain = await connectNativeChain(node.rpcUrl);
}, 180_000);
afterAll(async () => {
  await chain?.close();
  await node?.stop();
});

interface Driven {
  simulators: RunningNativeSimulator[];
  ticks: NativeTick[][];
  firstBlock: number;
  lastBlock: number;
}

/**
 * Runs simulators over `blocks` blocks built on demand: each block is built once every simulator has
 * sent its extrinsics for the head before it, so each tick lands in the next block.
 */
async function drive(
  blocks: number,
  configs: Omit<NativeSimulatorOptions, "rpcUrl" | "signal" | "onTick">[],
  aroundBlock: { before?: (index: number) => Promise<void>; after?: (index: number) => Promise<void> } = {},
): Promise<Driven> {
  const controller = new AbortController();
  const ticks: NativeTick[][] = configs.map(() => []);
  const firstBlock = (await chain.api.rpc.chain.getHeader()).number.toNumber() + 1;
  const simulators = await Promise.all(
    configs.map((config, index) =>
      startNativeSimulator({
        ...config,
        rpcUrl: node.rpcUrl,
        signal: controller.signal,
        log,
        onTick: (tick) => ticks[index]!.push(tick),
      }),
    ),
  );
  try {
    for (let head = firstBlock - 1; head < firstBlock - 1 + blocks; head++) {
      await waitUntil(
        () => ticks.every((list) => list.some((tick) => tick.blockNumber === head)),
        `every simulator ticked at #${head}`,
      );
      const index = head - firstBlock + 1;
      await aroundBlock.before?.(index);
      await node.newBlocks(1);
      await aroundBlock.after?.(index);
    }
  } finally {
    controller.abort();
    await Promise.all(simulators.map((simulator) => simulator.done));
  }
  return { simulators, ticks, firstBlock, lastBlock: firstBlock - 1 + blocks };
}

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** How many successful extrinsics emitted each kind's event in the blocks. */
async function eventCounts(first: number, last: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (let number = first; number <= last; number++) {
    const hash = (await chain.api.rpc.chain.getBlockHash(number)).toHex();
    for (const { event, phase } of await blockEvents(chain.api, hash)) {
      if (phase.isApplyExtrinsic) counts[eventName(event)] = (counts[eventName(event)] ?? 0) + 1;
    }
  }
  return counts;
}

/** Sets every seeded coldkey's free balance, keeping its nonce. */
async function setDevFunds(free: bigint): Promise<void> {
  const entries = [];
  for (const account of seeded.accounts.filter((candidate) => candidate.role === "coldkey")) {
    const { nonce } = (await chain.api.query.system!.account!(account.ss58)).toJSON() as { nonce: number };
    entries.push([[account.ss58], { nonce, providers: 1, data: { free: free.toString() } }]);
  }
  await node.request("dev_setStorage", [{ System: { Account: entries } }]);
}

describe("startNativeSimulator", () => {
  it("keeps every kind of native activity going over ten blocks", async () => {
    const started = Date.now();
    const run = await drive(10, [
      { seededAccounts: seeded.accounts, random: networkRandom("native-simulator-test"), registerChance: 0.4 },
    ]);
    const events = await eventCounts(run.firstBlock, run.lastBlock);
    const counts = run.simulators[0]!.counts();
    console.info(
      `10 blocks in ${Date.now() - started} ms; counts ${JSON.stringify(counts)}; events ${JSON.stringify(events)}`,
    );
    for (const [kind, event] of Object.entries(EVENT_OF_KIND)) {
      expect(events[event] ?? 0, event).toBeGreaterThan(0);
      expect(counts[kind as keyof typeof EVENT_OF_KIND].succeeded, kind).toBeGreaterThan(0);
    }
    // The balance guard keeps transfers and stakes within what the accounts hold.
    expect(counts.transfer.failed).toBe(0);
    expect(counts.stakeAdd.failed).toBe(0);
    expect(run.ticks[0]!.every((tick) => tick.error === undefined && tick.submitted.length > 0)).toBe(true);
  }, 180_000);

  it("counts calls that fail in their block and keeps going", async () => {
    // The accounts are emptied while their calls wait in the pool: the feeless stake and
    // registration calls then fail in the block (NotEnoughBalanceToStake), the transfers are dropped.
    const run = await drive(
      6,
      [{ seededAccounts: seeded.accounts, random: networkRandom("starved"), registerChance: 1 }],
      {
        before: async (index) => (index === 1 ? setDevFunds(0n) : undefined),
        after: async (index) => (index === 1 ? setDevFunds(1_000_000n * 1_000_000_000n) : undefined),
      },
    );
    const counts = run.simulators[0]!.counts();
    console.info(`starved run counts ${JSON.stringify(counts)}`);
    expect(counts.register.failed + counts.stakeAdd.failed).toBeGreaterThan(0);
    // Block firstBlock + 1 is built on empty accounts; ticks from the block after the refund on spend again.
    const later = run.ticks[0]!.filter((tick) => tick.blockNumber >= run.firstBlock + 2);
    expect(later.length).toBeGreaterThanOrEqual(3);
    expect(later.every((tick) => tick.error === undefined && tick.submitted.length > 0)).toBe(true);
    const events = await eventCounts(run.lastBlock - 1, run.lastBlock);
    expect(events["balances.Transfer"] ?? 0).toBeGreaterThan(0);
  }, 120_000);
});
