/*
 * The subnets projection's pools and emissions against a real Redis and a real PostgreSQL: Redis
 * keeps the subnets' own window of them, while their history is the market projection's, written
 * once (read-models historySeries.ts). Both projections fold the same batches of chain.network.v1,
 * as the projector runs them. A lost Redis is rebuilt with the subnets' window copied from the
 * market's series, point for point what the projection had written.
 */
import { join } from "node:path";
import { Writable } from "node:stream";
import type { ConsumedRecord, ProjectionBatch } from "@platform/bus";
import { type HistoryDb, historyTables } from "@platform/history";
import { type HistoryServer, startHistoryServer } from "@platform/history/testing";
import { createLogger } from "@platform/log";
import { type ChainRef, Finality } from "@platform/proto/common/v1/common";
import { PoolMechanism } from "@platform/proto/common/v1/network";
import type { NetworkChainEvent } from "@platform/proto/events/v1/chain_network";
import { encodePayload, TOPICS } from "@platform/proto/topics";
import { marketKeys, subnetsKeys } from "@platform/read-models";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marketProjection } from "../market/projection.js";
import { subnetsProjection } from "./projection.js";

const dir = tempDir("projector-subnets-shared-history");
const log = createLogger({
  service: "projector-test",
  level: "warn",
  destination: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
});
const T0 = Date.UTC(2026, 0, 1);
const NETUID = 3;

let redisServer: RunningRedis;
let historyServer: HistoryServer;
let redis: Redis;
let history: HistoryDb;

const hashOf = (block: number) => `0x${"a".repeat(8)}${block.toString(16).padStart(56, "0")}`;
const ref = (block: number): ChainRef => ({
  chainId: "945",
  blockNumber: String(block),
  blockHash: hashOf(block),
  parentHash: hashOf(block - 1),
  blockTimestamp: new Date(T0 + block * 12_000).toISOString(),
  finality: Finality.FINALITY_LATEST,
});
const pool = (block: number): NetworkChainEvent => ({
  event: {
    $case: "poolSnapshot",
    value: {
      ref: ref(block),
      netuid: NETUID,
      mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
      taoInRao: String(1_000_000_000_000 + block),
      alphaInNalpha: "2000000000000",
      alphaOutNalpha: "500000000000",
      alphaIssuanceNalpha: "2500000000000",
      priceTao: "0.5",
      movingPriceTao: "0.5",
      volumeTotalRao: String(block * 1_000),
    },
  },
});
const emission = (block: number): NetworkChainEvent => ({
  event: {
    $case: "emissionSnapshot",
    value: {
      ref: ref(block),
      netuid: NETUID,
      emissionEnabled: true,
      taoInEmissionRao: String(block),
      blockEmissionRao: "0",
      tempo: 360,
    },
  },
});
const removed = (block: number, type: "PoolSnapshot" | "EmissionSnapshot"): NetworkChainEvent => ({
  event: {
    $case: "chainEventRemoved",
    value: {
      removed: ref(block),
      removedEventId: "x",
      removedEventType: type,
      key: `netuid:${NETUID}`,
      commonAncestorBlockNumber: String(block - 1),
      commonAncestorBlockHash: hashOf(block - 1),
      detectedAt: new Date().toISOString(),
    },
  },
});

let offset = -1;
/** One batch of partition 0 of chain.network.v1, after the previous one, folded by both projections. */
async function publish(...events: NetworkChainEvent[]): Promise<void> {
  const previous = offset;
  const messages: ConsumedRecord[] = events.map((event) => ({
    topic: TOPICS.chainNetwork.name,
    partition: 0,
    offset: String(++offset),
    timestamp: "0",
    key: `netuid:${NETUID}`,
    value: Buffer.from(encodePayload(TOPICS.chainNetwork, event)),
    eventId: undefined,
    eventType: undefined,
    schema: undefined,
    traceparent: undefined,
    tracestate: undefined,
    headers: {},
  }));
  const batch: ProjectionBatch = {
    topic: TOPICS.chainNetwork.name,
    partition: 0,
    messages,
    lastOffset: String(offset),
    previousOffset: previous < 0 ? undefined : String(previous),
    heartbeat: async () => undefined,
  };
  await marketProjection({ redis, history, log }).handleBatch(batch);
  await subnetsProjection({ redis, history, log }).handleBatch(batch);
}

const storedBlocks = async (series: string): Promise<number[]> =>
  (
    await history.unsafe(`select block from ${historyTables.seriesPoints} where series = $1 order by block`, [series])
  ).map((row) => Number(row.block));
const kept = (key: string) => redis.zrange(key, "0", "-1");
const blocksOf = (texts: string[]) => texts.map((text) => (JSON.parse(text) as { b: number }).b);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

beforeAll(async () => {
  [redisServer, historyServer] = await Promise.all([
    startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") }),
    startHistoryServer({ dataDir: join(dir.path, "postgres") }),
  ]);
  redis = createRedis({ url: redisServer.url, connectionName: "subnets-shared-history", commandTimeoutMs: 10_000 });
  history = historyServer.connect("projector");
  await waitFor(async () => redis.status === "ready", { what: "redis connection" });
}, 120_000);

afterAll(async () => {
  redis?.disconnect();
  await Promise.all([redisServer?.stop(), historyServer?.stop()]);
  dir.remove();
});

describe("subnets projection: pools and emissions kept in PostgreSQL once, by the market", () => {
  it("writes no pool or emission row of its own, keeps its window in Redis, and follows a removal", async () => {
    for (let block = 1; block <= 70; block += 10)
      await publish(...range(block, block + 9).flatMap((at) => [pool(at), emission(at)]));
    expect(await storedBlocks(subnetsKeys.poolPoints(NETUID))).toEqual([]);
    expect(await storedBlocks(subnetsKeys.emissionPoints(NETUID))).toEqual([]);
    expect(await storedBlocks(marketKeys.poolPoints(NETUID))).toEqual(range(1, 70));
    expect(await storedBlocks(marketKeys.emissionPoints(NETUID))).toEqual(range(1, 70));
    // Its own window: the newest 64 (subnets/keys.ts).
    expect(blocksOf(await kept(subnetsKeys.poolPoints(NETUID)))).toEqual(range(7, 70));
    expect(blocksOf(await kept(subnetsKeys.emissionPoints(NETUID)))).toEqual(range(7, 70));

    await publish(removed(70, "PoolSnapshot"), removed(70, "EmissionSnapshot"));
    expect(blocksOf(await kept(subnetsKeys.poolPoints(NETUID))).at(-1)).toBe(69);
    expect((await storedBlocks(marketKeys.poolPoints(NETUID))).at(-1)).toBe(69);
    expect(await storedBlocks(subnetsKeys.poolPoints(NETUID))).toEqual([]);
  });

  it("rebuilds a lost Redis with its window copied from the market's series, as it had written it", async () => {
    const before = {
      pool: await kept(subnetsKeys.poolPoints(NETUID)),
      emission: await kept(subnetsKeys.emissionPoints(NETUID)),
    };
    expect(before.pool).toHaveLength(63);
    await redis.flushall();
    await subnetsProjection({ redis, history, log }).restore!();
    // The newest 64 the market holds (through 69), each the snapshot alone: the same members.
    const after = {
      pool: await kept(subnetsKeys.poolPoints(NETUID)),
      emission: await kept(subnetsKeys.emissionPoints(NETUID)),
    };
    expect(blocksOf(after.pool)).toEqual(range(6, 69));
    expect(after.pool.slice(1)).toEqual(before.pool);
    expect(after.emission.slice(1)).toEqual(before.emission);

    // And it goes on from there: the next block lands on the restored window.
    await marketProjection({ redis, history, log }).restore!();
    await publish(pool(71), emission(71));
    expect(blocksOf(await kept(subnetsKeys.poolPoints(NETUID))).at(-1)).toBe(71);
    expect(await storedBlocks(subnetsKeys.poolPoints(NETUID))).toEqual([]);
  });
});
