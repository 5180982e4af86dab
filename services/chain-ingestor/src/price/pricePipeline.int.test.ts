import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { type ConsumedRecord, createKafkaClient, type Kafka } from "@platform/bus";
import { loadChainConfig } from "@platform/chain";
import { type DevnetDeployment, deployDevnet } from "@platform/devnet";
import { createLogger, type Logger } from "@platform/log";
import type { ChainEventRemoved } from "@platform/proto/events/v1/chain";
import { CheckpointEvent } from "@platform/proto/events/v1/ingestor_checkpoints";
import type { PriceObserved } from "@platform/proto/events/v1/oracle_prices";
import { decodePayload, TOPICS } from "@platform/proto/topics";
import { createPriceFeedMover, type PriceFeedMover, type SubmittedRound } from "@platform/simulator";
import { formatScaled, priceFeedAbi } from "@platform/subtensor";
import { type RunningAnvil, type RunningKafka, startAnvil, startKafka, tempDir, waitFor } from "@platform/testing";
import { createTestClient, getAddress, http } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTopic } from "../../test/devnetHarness.js";
import { followerClient } from "../evm/followerClient.js";
import type { BlockHeader } from "../follower/blocks.js";
import { priceBlockSource } from "./priceBlockSource.js";
import { type PriceIngestor, priceFeedChain, startPriceIngestor } from "./priceIngestor.js";

/*
 * On real servers: an anvil origin chain with the devnet's TAO/USD feed, and one Kafka broker. The
 * price ingestor runs in process; every round it publishes is compared with the feed's own logs and
 * reads at the same block.
 */

const CHAIN_ID = 31337;
const SOURCE_ID = `${CHAIN_ID}:price`;
const dir = tempDir("price-pipeline");
const log: Logger = createLogger({
  service: "price-test",
  level: "warn",
  destination: new Writable({ write: (_c, _e, callback) => callback() }),
});

let anvil: RunningAnvil;
let kafkaServer: RunningKafka;
let kafka: Kafka;
let deployment: DevnetDeployment;
let chainsFile: string;
let mover: PriceFeedMover;
let ingestor: PriceIngestor | undefined;
/** Where the source started without a checkpoint: after the rounds submitted before it ran. */
let startBlock: bigint;
const fenced: unknown[] = [];

const testClient = () => createTestClient({ transport: http(anvil.rpcUrl), mode: "anvil" });
const feed = () => deployment.chains["origin"]!.contracts.priceFeed!;

async function startInProcess(): Promise<PriceIngestor> {
  const chains = await loadChainConfig(chainsFile);
  return startPriceIngestor({
    kafka,
    chains: chains.chains,
    pollIntervalMs: 100,
    maxBlocksPerBatch: 20,
    startBlock,
    replicationFactor: 1,
    log,
    onFenced: (error) => fenced.push(error),
  });
}

beforeAll(async () => {
  [anvil, kafkaServer] = await Promise.all([
    startAnvil({ chainId: CHAIN_ID, logFile: join(dir.path, "anvil.log") }),
    startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") }),
  ]);
  deployment = await deployDevnet({
    chains: [{ name: "origin", chainId: CHAIN_ID, rpcUrl: anvil.rpcUrl, roles: ["origin"] }],
  });
  chainsFile = join(dir.path, "chains.json");
  writeFileSync(
    chainsFile,
    JSON.stringify({
      environment: "test",
      chains: [
        {
          name: "origin",
          chainId: CHAIN_ID,
          rpcUrl: anvil.rpcUrl,
          roles: ["origin"],
          blockTimeMs: 1_000,
          finality: { safeDepth: 1, finalizedDepth: 3 },
          nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
          rpc: { timeoutMs: 5_000, retryCount: 2, retryDelayMs: 100 },
          contracts: deployment.chains["origin"]!.contracts,
        },
      ],
    }),
  );
  mover = await createPriceFeedMover({
    rpcUrl: anvil.rpcUrl,
    simulatorKey: deployment.accounts.simulator.privateKey,
    priceFeed: feed(),
    seed: "price-pipeline",
  });
  // Rounds 2 and 3 go out before the source first runs, and it starts after them: on its first
  // block it must publish round 3 read from the feed, not wait for the next round.
  await mover.submitRound();
  const third = await mover.submitRound();
  await testClient().mine({ blocks: 2 });
  startBlock = third.blockNumber + 1n;
  kafka = createKafkaClient({ brokers: kafkaServer.brokers, clientId: "price-test", logger: log });
  ingestor = await startInProcess();
  await waitFor(() => ingestor!.check.probe(), { what: "price ingestor following", timeoutMs: 90_000 });
}, 240_000);

afterAll(async () => {
  await ingestor?.stop();
  await Promise.all([anvil?.stop(), kafkaServer?.stop()]);
  dir.remove();
}, 60_000);

async function checkpointBlock(): Promise<bigint> {
  const last = (await readTopic(kafka, TOPICS.ingestorCheckpoints.name))
    .filter((record) => record.key === SOURCE_ID)
    .at(-1);
  if (last?.value === undefined || last.value === null) return -1n;
  const payload = CheckpointEvent.decode(last.value);
  return payload.event?.$case === "checkpoint" ? BigInt(payload.event.value.blockNumber) : -1n;
}

async function publishedThrough(block: bigint): Promise<void> {
  await waitFor(async () => (await checkpointBlock()) >= block, {
    what: `checkpoint at block ${block}`,
    timeoutMs: 60_000,
    intervalMs: 200,
  });
}

interface Published {
  record: ConsumedRecord;
  round: PriceObserved;
}

async function publishedRounds(): Promise<Published[]> {
  return (await readTopic(kafka, TOPICS.oraclePrices.name)).flatMap((record) => {
    if (record.value === null) return [];
    const event = decodePayload(TOPICS.oraclePrices, record.value).event;
    return event?.$case === "priceObserved" ? [{ record, round: event.value }] : [];
  });
}

/** The removals the source published: on oracle.prices.v1 with the rounds, never on chain.network.v1. */
async function removals(): Promise<ChainEventRemoved[]> {
  return (await readTopic(kafka, TOPICS.oraclePrices.name)).flatMap((record) => {
    if (record.value === null) return [];
    const event = decodePayload(TOPICS.oraclePrices, record.value).event;
    return event?.$case === "chainEventRemoved" ? [event.value] : [];
  });
}

/** What the price source must have published for a round mined by the mover: from its AnswerUpdated log. */
async function expectPublished(published: readonly Published[], submitted: SubmittedRound): Promise<Published> {
  const [log] = await mover.publicClient.getContractEvents({
    address: feed(),
    abi: priceFeedAbi,
    eventName: "AnswerUpdated",
    args: { roundId: submitted.roundId },
    fromBlock: submitted.blockNumber,
    toBlock: submitted.blockNumber,
  });
  expect(log, `AnswerUpdated of round ${submitted.roundId}`).toBeDefined();
  const matching = published.filter(({ round }) => round.ref?.txHash === submitted.hash);
  expect(matching, `records of round ${submitted.roundId}`).toHaveLength(1);
  const { record, round } = matching[0]!;
  expect(round).toMatchObject({
    asset: "TAO",
    vs: "usd",
    answer: submitted.answer.toString(),
    price: formatScaled(submitted.answer, 8),
    decimals: 8,
    roundId: submitted.roundId.toString(),
    updatedAt: new Date(Number(log!.args.updatedAt) * 1_000).toISOString(),
    feedAddress: getAddress(feed()),
    provider: "chainlink",
    ref: {
      chainId: String(CHAIN_ID),
      blockNumber: submitted.blockNumber.toString(),
      blockHash: log!.blockHash.toLowerCase(),
      txHash: submitted.hash,
      logIndex: log!.logIndex,
    },
  });
  expect(record.key).toBe("TAO");
  expect(record.eventId).toBe(
    `${CHAIN_ID}:${log!.blockHash.toLowerCase()}:PriceObserved:${log!.logIndex}:${submitted.roundId}`,
  );
  return matching[0]!;
}

describe("price source: anvil (origin chain, TAO/USD feed) → chain-ingestor → Kafka", () => {
  it("starting without a checkpoint, publishes the feed's latest round with its first block", async () => {
    await publishedThrough(startBlock);
    const [first] = await publishedRounds();
    const block = await mover.publicClient.getBlock({ blockNumber: startBlock });
    const [roundId, answer, , updatedAt] = await mover.publicClient.readContract({
      address: feed(),
      abi: priceFeedAbi,
      functionName: "latestRoundData",
      blockNumber: startBlock,
    });
    expect(roundId).toBe(3n);
    expect(first?.round).toMatchObject({
      answer: answer.toString(),
      roundId: "3",
      updatedAt: new Date(Number(updatedAt) * 1_000).toISOString(),
      ref: {
        blockNumber: startBlock.toString(),
        blockHash: block.hash,
        blockTimestamp: new Date(Number(block.timestamp) * 1_000).toISOString(),
      },
    });
    // Read from the feed, not from a log: the ref names no transaction, and the id says "latest".
    expect(first?.round.ref?.txHash).toBeUndefined();
    expect(first?.record.eventId).toBe(`${CHAIN_ID}:${block.hash}:PriceObserved:latest:3`);
  });

  it("publishes every later round from its AnswerUpdated log, in order, equal to the feed's log", async () => {
    const submitted = [await mover.submitRound(), await mover.submitRound(), await mover.submitRound()];
    await publishedThrough(submitted.at(-1)!.blockNumber);
    const published = await publishedRounds();
    for (const round of submitted) await expectPublished(published, round);
    // One partition (the asset's key): offset order is the order the rounds were published in.
    expect(published.map(({ round }) => round.roundId)).toEqual([
      "3",
      ...submitted.map((round) => round.roundId.toString()),
    ]);
    expect(new Set(published.map(({ record }) => record.partition)).size).toBe(1);
  });

  it("publishes a removal of the round of a block a reorganisation undid, and the round that replaces it", async () => {
    const snapshot = await testClient().snapshot();
    const undone = await mover.submitRound();
    await publishedThrough(undone.blockNumber);
    const { record } = await expectPublished(await publishedRounds(), undone);

    await testClient().revert({ id: snapshot });
    await testClient().mine({ blocks: 3 });
    const removal = await waitFor(
      async () => (await removals()).find((candidate) => candidate.removedEventId === record.eventId),
      { what: "the removal of the undone round", timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(removal).toMatchObject({
      removedEventType: "PriceObserved",
      key: "TAO",
      removed: { blockHash: record.eventId!.split(":")[1], txHash: undone.hash },
    });
    expect(BigInt(removal.commonAncestorBlockNumber)).toBeLessThan(undone.blockNumber);

    // The same round id again, on the new branch: a new record, not the undone one.
    const replacement = await mover.submitRound();
    expect(replacement.roundId).toBe(undone.roundId);
    await publishedThrough(replacement.blockNumber);
    const again = await expectPublished(await publishedRounds(), replacement);
    expect(again.record.eventId).not.toBe(record.eventId);
  });

  it("read from genesis, publishes nothing before the feed exists and its first round from the deployment's log", async () => {
    // The price source's reading of blocks as priceSource.ts builds it, outside any follower: the
    // running ingestor is undisturbed. A fresh source asks for the latest round from its first block.
    const chain = priceFeedChain((await loadChainConfig(chainsFile)).chains)!;
    const source = priceBlockSource({
      client: followerClient(chain),
      depths: chain.finality,
      feed: { chainId: CHAIN_ID, feed: chain.contracts.priceFeed, asset: "TAO", vs: "usd" },
    });
    source.publishLatestPriceOnNextBlock();
    const [deployed] = await mover.publicClient.getContractEvents({
      address: feed(),
      abi: priceFeedAbi,
      eventName: "AnswerUpdated",
      args: { roundId: 1n },
      fromBlock: 0n,
    });
    const headerAt = async (number: bigint): Promise<BlockHeader> => {
      const block = await mover.publicClient.getBlock({ blockNumber: number });
      return { number: block.number, hash: block.hash, parentHash: block.parentHash, timestamp: block.timestamp };
    };
    const headers: BlockHeader[] = [];
    for (let number = 0n; number <= deployed!.blockNumber; number++) headers.push(await headerAt(number));
    const records = await source.readBlocks(headers, headers.at(-1)!.number);
    expect([...records.keys()]).toEqual([deployed!.blockHash]);
    expect(records.get(deployed!.blockHash)!.map((record) => [record.eventId, record.ref.txHash])).toEqual([
      [`${CHAIN_ID}:${deployed!.blockHash}:PriceObserved:${deployed!.logIndex}:1`, deployed!.transactionHash],
    ]);
    // The logged round settled the latest one: a later block without a round publishes nothing.
    const quiet = await headerAt(startBlock);
    expect((await source.readBlocks([quiet], quiet.number)).size).toBe(0);
  });

  it("resumes after a restart from its checkpoint, without losing or repeating a round", async () => {
    await ingestor!.stop();
    ingestor = undefined;
    const whileDown = [await mover.submitRound(), await mover.submitRound()];
    ingestor = await startInProcess();
    await publishedThrough(whileDown.at(-1)!.blockNumber);
    const published = await publishedRounds();
    for (const round of whileDown) await expectPublished(published, round);
    // Every record once: none re-published for the kept blocks, and no second "latest" round (the checkpoint exists).
    const ids = published.map(({ record }) => record.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => id?.includes(":latest:"))).toHaveLength(1);
    expect(fenced).toEqual([]);
  });
});
