import { join } from "node:path";
import { Writable } from "node:stream";
import { type ConsumedRecord, createKafkaClient, type Kafka } from "@platform/bus";
import { type SubstrateNetworkInput, substrateNetworkSchema } from "@platform/chain";
import { subtensorChainSpec } from "@platform/devnet";
import { createLogger, type Logger } from "@platform/log";
import { CheckpointEvent } from "@platform/proto/events/v1/ingestor_checkpoints";
import { decodePayload, TOPICS } from "@platform/proto/topics";
import { createRedis, type Redis } from "@platform/store";
import {
  type RunningChopsticks,
  type RunningKafka,
  type RunningRedis,
  startChopsticks,
  startKafka,
  startRedis,
  tempDir,
  waitFor,
} from "@platform/testing";
import { ApiPromise, WsProvider } from "@polkadot/api";
import { Keyring } from "@polkadot/keyring";
import { cryptoWaitReady } from "@polkadot/util-crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The rest of the pipeline is the services' own code: the projector's market projection folds the
// records into Redis, and data-query's read answers from there, as GET /data/v1/network/stats/latest does.
import { getNetworkStatsLatest } from "../../../../data-query/src/market/stats.js";
import { type MarketProjection, marketProjection } from "../../../../projector/src/market/projection.js";
import { readTopic } from "../../../test/devnetHarness.js";
import { type NativeIngestor, startNativeIngestor } from "./ingestor.js";

/*
 * Issue 30, point 4, on real servers: the Subtensor runtime (spec 218) under chopsticks, one Kafka
 * broker and one Redis. Transfers and blocks are made through real signed extrinsics; the native
 * source publishes each block's own counts, the market projection sums them, and the answer is
 * compared with a count made here, block by block, through another client (@polkadot/api:
 * `chain_getBlock` for the extrinsics, `System.Events` for the transfers).
 *
 * Two sources follow the same node: one from genesis, one from a later block. They publish under
 * different chain ids (their checkpoints and transactional ids apart), and each one's records are
 * projected into its own Redis database, as if each were the platform's only source.
 */

const dir = tempDir("native-counts");
const log: Logger = createLogger({
  service: "native-counts-test",
  level: "warn",
  destination: new Writable({ write: (_c, _e, callback) => callback() }),
});
const ALICE_FUNDS = 1_000_000_000_000_000n;

let node: RunningChopsticks;
let kafkaServer: RunningKafka;
let redisServer: RunningRedis;
let kafka: Kafka;
let api: ApiPromise;
const ingestors: NativeIngestor[] = [];
const redises: Redis[] = [];

const keyring = () => new Keyring({ type: "sr25519", ss58Format: 42 });
const networkOf = (name: string, chainId: number): SubstrateNetworkInput => ({
  name,
  chainId,
  rpcUrl: node.rpcUrl,
  blockTimeMs: 1_000,
  finality: { safeDepth: 1, finalizedDepth: 3 },
  rpc: { timeoutMs: 20_000, retryCount: 1, retryDelayMs: 100 },
});

beforeAll(async () => {
  await cryptoWaitReady();
  [node, kafkaServer, redisServer] = await Promise.all([
    startChopsticks({ genesis: subtensorChainSpec(), logFile: join(dir.path, "chopsticks.log") }),
    startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") }),
    startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") }),
  ]);
  const alice = keyring().addFromUri("//Alice");
  await node.request("dev_setStorage", [
    { System: { Account: [[[alice.address], { providers: 1, data: { free: ALICE_FUNDS.toString() } }]] } },
  ]);
  api = await ApiPromise.create({ provider: new WsProvider(node.rpcUrl), noInitWarn: true });
  kafka = createKafkaClient({ brokers: kafkaServer.brokers, clientId: "native-counts-test", logger: log });
}, 300_000);

afterAll(async () => {
  await Promise.all(ingestors.map((ingestor) => ingestor.stop()));
  for (const redis of redises) redis.disconnect();
  await api?.disconnect();
  await Promise.all([node?.stop(), kafkaServer?.stop(), redisServer?.stop()]);
  dir.remove();
}, 60_000);

function follow(input: SubstrateNetworkInput, startBlock?: bigint): void {
  ingestors.push(
    startNativeIngestor({
      kafka,
      network: substrateNetworkSchema.parse(input),
      pollIntervalMs: 100,
      maxBlocksPerBatch: 4,
      replicationFactor: 1,
      log,
      onFenced: () => undefined,
      ...(startBlock === undefined ? {} : { startBlock }),
    }),
  );
}

async function headNumber(): Promise<number> {
  return (await api.rpc.chain.getHeader()).number.toNumber();
}

/** The source of `chainId` has committed the node's best block. */
async function caughtUp(chainId: number): Promise<void> {
  const target = BigInt(await headNumber());
  await waitFor(
    async () => {
      const checkpoints = (await readTopic(kafka, TOPICS.ingestorCheckpoints.name))
        .filter((record) => record.key === `${chainId}:native`)
        .map((record) => BigInt(CheckpointEvent.decode(record.value!).event!.value.blockNumber));
      return (checkpoints.at(-1) ?? -1n) >= target;
    },
    { what: `the source of chain ${chainId} at block ${target}`, timeoutMs: 180_000, intervalMs: 250 },
  );
}

/** The chain id a chain.network.v1 record belongs to (a removal's: that of the record it takes back). */
function chainIdOf(record: ConsumedRecord): string | undefined {
  const event = decodePayload(TOPICS.chainNetwork, record.value!).event;
  if (event === undefined) return undefined;
  return event.$case === "chainEventRemoved" ? event.value.removed?.chainId : event.value.ref?.chainId;
}

/**
 * A market projection over one source's records: each call folds what that source published since
 * the last call, partition by partition in offset order, as the projector's consumer hands them over.
 */
async function projectionOf(chainId: number, database: number) {
  const redis = createRedis({ url: `${redisServer.url}/${database}`, connectionName: `counts-${chainId}` });
  redises.push(redis);
  await waitFor(async () => redis.status === "ready", { what: "the test's Redis connection" });
  const projection: MarketProjection = marketProjection({ redis, log });
  const applied = new Map<number, string>();
  return {
    redis,
    async catchUp(): Promise<void> {
      const records = await readTopic(kafka, TOPICS.chainNetwork.name);
      const partitions = [...new Set(records.map((record) => record.partition))];
      for (const partition of partitions) {
        const after = applied.get(partition);
        const fresh = records
          .filter((record) => record.partition === partition)
          .filter((record) => after === undefined || BigInt(record.offset) > BigInt(after))
          .sort((a, b) => (BigInt(a.offset) < BigInt(b.offset) ? -1 : 1))
          .filter((record) => chainIdOf(record) === String(chainId));
        if (fresh.length === 0) continue;
        await projection.handleBatch({
          topic: TOPICS.chainNetwork.name,
          partition,
          messages: fresh,
          lastOffset: fresh.at(-1)!.offset,
          previousOffset: after,
          heartbeat: async () => undefined,
        });
        applied.set(partition, fresh.at(-1)!.offset);
      }
    },
  };
}

/** Extrinsics (`chain_getBlock`) and `Balances.Transfer` events of the canonical blocks from..to, counted here. */
async function directCounts(from: number, to: number): Promise<{ extrinsics: number; transfers: number }> {
  let extrinsics = 0;
  let transfers = 0;
  for (let number = from; number <= to; number++) {
    const hash = await api.rpc.chain.getBlockHash(number);
    const block = await api.rpc.chain.getBlock(hash);
    extrinsics += block.block.extrinsics.length;
    const events = (await (await api.at(hash)).query.system.events()) as unknown as {
      event: { section: string; method: string };
    }[];
    transfers += events.filter(({ event }) => event.section === "balances" && event.method === "Transfer").length;
  }
  return { extrinsics, transfers };
}

/** Signs and sends each call from Alice with consecutive nonces, then builds one block with them. */
async function blockWith(calls: ((nonce: number) => Promise<unknown>)[]): Promise<string> {
  const alice = keyring().addFromUri("//Alice");
  const nonce = (await api.rpc.system.accountNextIndex(alice.address)).toNumber();
  for (const [index, call] of calls.entries()) await call(nonce + index);
  return node.newBlocks(1);
}

const transfer =
  (to: string, amount: bigint) =>
  (nonce: number): Promise<unknown> =>
    api.tx.balances!.transferKeepAlive!(to, amount).signAndSend(keyring().addFromUri("//Alice"), { nonce });
const batchOfTransfers =
  (recipients: readonly string[], amount: bigint) =>
  (nonce: number): Promise<unknown> =>
    api.tx.utility!.batchAll!(recipients.map((to) => api.tx.balances!.transferKeepAlive!(to, amount))).signAndSend(
      keyring().addFromUri("//Alice"),
      { nonce },
    );
const address = (seed: string) => keyring().addFromUri(`//${seed}`).address;

/** The answer's counts, and what was counted here over the blocks it says it covers. */
async function answerAndDirect(redis: Redis) {
  const answer = await getNetworkStatsLatest(redis);
  const asOf = Number(answer.asOf!.blockNumber);
  expect(answer.countedSinceBlock, "counted_since_block").toBeDefined();
  const since = Number(answer.countedSinceBlock);
  return {
    counted: { since, asOf, extrinsics: Number(answer.extrinsicsCount), transfers: Number(answer.transfersCount) },
    direct: { since, asOf, ...(await directCounts(since, asOf)) },
  };
}

describe("extrinsics and transfers counted over the followed blocks, on the real runtime", () => {
  const GENESIS_CHAIN = 945;
  const LATER_CHAIN = 946;
  let fromGenesis: Awaited<ReturnType<typeof projectionOf>>;
  let laterStart = 0;

  it("from genesis: the counts equal a direct count of every block since block 0", async () => {
    fromGenesis = await projectionOf(GENESIS_CHAIN, 0);
    // Nothing projected yet: no answer at all, rather than counts of nothing.
    await expect(getNetworkStatsLatest(fromGenesis.redis)).rejects.toThrow(/no network stats/);
    follow(networkOf("bittensor", GENESIS_CHAIN));

    await blockWith([transfer(address("Bob"), 5_000_000_000n)]);
    await blockWith([
      transfer(address("Charlie"), 1_000_000_000n),
      batchOfTransfers([address("Dave"), address("Eve"), address("Ferdie")], 2_000_000_000n),
    ]);
    // A transfer beyond Alice's funds: the extrinsic is in the block (its fee paid), its Transfer is not.
    await blockWith([transfer(address("Bob"), ALICE_FUNDS * 2n)]);
    await node.newBlocks(2);
    await caughtUp(GENESIS_CHAIN);
    await fromGenesis.catchUp();

    const { counted, direct } = await answerAndDirect(fromGenesis.redis);
    expect(counted).toEqual(direct);
    expect(counted.since).toBe(0);
    expect(counted.asOf).toBe(await headNumber());
    // What was made above: 5 transfers (1 + 1 + 3 in a batch), and every block's timestamp inherent.
    expect(counted.transfers).toBe(5);
    expect(counted.extrinsics).toBeGreaterThanOrEqual(counted.asOf + 4);

    // Folded again block by block, later blocks add only their own.
    laterStart = (await headNumber()) - 1;
    await blockWith([transfer(address("Bob"), 3_000_000_000n), transfer(address("Eve"), 3_000_000_000n)]);
    await caughtUp(GENESIS_CHAIN);
    await fromGenesis.catchUp();
    const next = await answerAndDirect(fromGenesis.redis);
    expect(next.counted).toEqual(next.direct);
    expect(next.counted.transfers).toBe(7);
  }, 300_000);

  it("follows a reorganisation: the abandoned block's counts are taken back and the new branch's counted", async () => {
    const ancestor = await headNumber();
    const ancestorHash = (await api.rpc.chain.getBlockHash(ancestor)).toHex();
    const alice = keyring().addFromUri("//Alice");
    const nonce = (await api.rpc.system.accountNextIndex(alice.address)).toNumber();
    // The abandoned block: three transfers in a batch.
    await batchOfTransfers(
      [address("Abandoned1"), address("Abandoned2"), address("Abandoned3")],
      1_000_000_000n,
    )(nonce);
    await node.newBlocks(1);
    await caughtUp(GENESIS_CHAIN);
    await fromGenesis.catchUp();
    const withAbandoned = await answerAndDirect(fromGenesis.redis);
    expect(withAbandoned.counted).toEqual(withAbandoned.direct);
    expect(withAbandoned.counted.transfers).toBe(10);

    // Back to the ancestor; the new branch has one transfer and is a block longer.
    await node.request("dev_setHead", [ancestorHash]);
    await transfer(address("Chosen"), 4_000_000_000n)(nonce);
    await node.newBlocks(2);
    await caughtUp(GENESIS_CHAIN);
    await fromGenesis.catchUp();
    const after = await answerAndDirect(fromGenesis.redis);
    expect(after.counted.asOf).toBe(ancestor + 2);
    expect(after.counted).toEqual(after.direct);
    expect(after.counted.transfers).toBe(8);
  }, 300_000);

  it("from a later block: the counts say the block they start from and equal a direct count from there", async () => {
    const later = await projectionOf(LATER_CHAIN, 1);
    follow(networkOf("bittensor-later", LATER_CHAIN), BigInt(laterStart));
    await caughtUp(LATER_CHAIN);
    await later.catchUp();
    const { counted, direct } = await answerAndDirect(later.redis);
    expect(counted.since).toBe(laterStart);
    expect(counted).toEqual(direct);
    // Fewer than the source from genesis counts at the same block.
    const whole = await answerAndDirect(fromGenesis.redis);
    expect(whole.counted.asOf).toBe(counted.asOf);
    expect(counted.extrinsics).toBeLessThan(whole.counted.extrinsics);
  }, 300_000);
});
