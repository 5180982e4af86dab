/**
 * The hot window (REDIS_HOT_WINDOW_BLOCKS) on real Redis and PostgreSQL: Redis keeps a pool's
 * newest points only, the history database every one, and a Redis rebuilt from it keeps the same
 * window. The projection is fed batches by hand (no Kafka).
 */
import { join } from "node:path";
import type { HistoryDb } from "@platform/history";
import { type HistoryServer, startHistoryServer } from "@platform/history/testing";
import { PoolMechanism } from "@platform/proto/common/v1/network";
import type { NetworkChainEvent } from "@platform/proto/events/v1/chain_network";
import { TOPICS } from "@platform/proto/topics";
import { marketKeys, type SeriesPoint } from "@platform/read-models";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  batchMaker,
  networkValues,
  ref,
  silentLog,
} from "../../../data-query/src/shared/testSupport/networkRecords.js";
import { marketProjection } from "./projection.js";

const dir = tempDir("projector-hot-window");
let redisServer: RunningRedis;
let redis: Redis;
let historyServer: HistoryServer;
let history: HistoryDb;

beforeAll(async () => {
  [redisServer, historyServer] = await Promise.all([
    startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") }),
    startHistoryServer({ dataDir: join(dir.path, "postgres") }),
  ]);
  redis = createRedis({ url: redisServer.url, connectionName: "hot-window-test", commandTimeoutMs: 10_000 });
  await waitFor(async () => redis.status === "ready", { what: "redis connection" });
  history = historyServer.connect("projector");
  await history`select history.ensure_block_partitions('series_points', 0, 1000)`;
}, 120_000);

afterAll(async () => {
  redis?.disconnect();
  await Promise.all([redisServer?.stop(), historyServer?.stop()]);
  dir.remove();
}, 30_000);

const pool = (block: number): NetworkChainEvent => ({
  event: {
    $case: "poolSnapshot",
    value: {
      ref: ref(block),
      netuid: 3,
      mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
      taoInRao: String(1_000 + block),
      alphaInNalpha: "4000",
      alphaOutNalpha: "1000",
      alphaIssuanceNalpha: "5000",
      priceTao: "0.25",
    },
  },
});
const redisBlocks = async () =>
  (await redis.zrange(marketKeys.poolPoints(3), "0", "-1")).map((text) => (JSON.parse(text) as SeriesPoint).b);

describe("the hot window", () => {
  it("keeps a pool's newest points in Redis and every one in PostgreSQL, and a rebuilt Redis keeps the same window", async () => {
    const projection = marketProjection({ redis, history, log: silentLog(), hotWindowBlocks: 3 });
    const nextBatch = batchMaker();
    for (let block = 1; block <= 6; block++)
      await projection.handleBatch(nextBatch(TOPICS.chainNetwork.name, "netuid:3", networkValues([pool(block)])));
    expect(await redisBlocks()).toEqual([4, 5, 6]);
    const kept =
      await history`select block::int from history.series_points where series = ${marketKeys.poolPoints(3)} order by block`;
    expect(kept.map((row) => row.block)).toEqual([1, 2, 3, 4, 5, 6]);
    await redis.flushall();
    await projection.restore!();
    expect(await redisBlocks()).toEqual([4, 5, 6]);
  });
});
