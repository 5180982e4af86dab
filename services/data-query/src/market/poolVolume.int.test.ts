import { join } from "node:path";
import { Interval } from "@platform/proto/common/v1/common";
import { PoolMechanism } from "@platform/proto/common/v1/network";
import type { NetworkChainEvent, PoolSnapshot } from "@platform/proto/events/v1/chain_network";
import { TOPICS } from "@platform/proto/topics";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// Written by the projector's own market projection (no Kafka): the contract between its running
// volume (projector shared/runningVolume.ts) and these readers.
import { marketProjection } from "../../../projector/src/market/projection.js";
import { batchMaker, networkValues, ref, silentLog } from "../shared/testSupport/networkRecords.js";
import { getSubnetPoolsHistory } from "./poolHistory.js";
import { getSubnetPoolsLatest } from "./pools.js";
import { poolTradersAt } from "./poolTraders.js";

const dir = tempDir("data-query-pool-volume");
const log = silentLog();
let redisServer: RunningRedis;
let redis: Redis;

const nextBatch = batchMaker();
const network = (key: string, ...events: NetworkChainEvent[]) =>
  marketProjection({ redis, log }).handleBatch(nextBatch(TOPICS.chainNetwork.name, key, networkValues(events)));

/** A pool snapshot at `block`: spec 218's kind (`blockVolumeRao`, no SubnetVolume) unless `fields` says otherwise. */
const pool = (netuid: number, block: number, fields: Partial<PoolSnapshot>): NetworkChainEvent => ({
  event: {
    $case: "poolSnapshot",
    value: {
      ref: ref(block),
      netuid,
      mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
      taoInRao: "1000000000000",
      alphaInNalpha: "4000000000000",
      alphaOutNalpha: "1000000000000",
      alphaIssuanceNalpha: "5000000000000",
      priceTao: "0.25",
      ...fields,
    },
  },
});
/** Beyond 2^53: exact only as integers. */
const BIG = 2n ** 60n + 3n;
const latest = async (netuid: number) =>
  (await getSubnetPoolsLatest(redis, { netuids: [netuid], includeRoot: false, sort: 0, order: 0 })).pools[0]!;

beforeAll(async () => {
  redisServer = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: redisServer.url, connectionName: "data-query-test", commandTimeoutMs: 10_000 });
  await waitFor(async () => redis.status === "ready", { what: "redis connection" });
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await redisServer?.stop();
  dir.remove();
});

describe("pool volumes where the runtime keeps no SubnetVolume", () => {
  it("volume_total_rao is the running sum of the pool's block volumes, from volume_since_block, and volume_24h_rao follows it", async () => {
    await network(
      "netuid:3",
      pool(3, 100, { blockVolumeRao: "0" }),
      pool(3, 101, { blockVolumeRao: "5000000000" }),
      pool(3, 102, { blockVolumeRao: BIG.toString() }),
      pool(3, 103, { blockVolumeRao: "7" }),
    );
    const run = 5_000_000_007n + BIG;
    expect(await latest(3)).toMatchObject({
      blockNumber: "103",
      volumeTotalRao: run.toString(),
      volumeSinceBlock: "100",
      // The series is younger than 24 hours: all it saw, its first block included.
      volume24hRao: run.toString(),
    });

    // Blocks 104-109 never came: the total starts again at block 110, and says so; the 24 h volume
    // goes on over every block seen, and never goes down.
    await network("netuid:3", pool(3, 110, { blockVolumeRao: "4" }));
    expect(await latest(3)).toMatchObject({
      blockNumber: "110",
      volumeTotalRao: "4",
      volumeSinceBlock: "110",
      volume24hRao: (run + 4n).toString(),
    });

    // Per block, each point shows its own block's volume.
    const perBlock = await getSubnetPoolsHistory(redis, {
      netuids: [3],
      window: { interval: Interval.INTERVAL_BLOCK, blockStart: "100", blockEnd: "110" },
      format: 0,
      order: 0,
    });
    expect(perBlock.points.map((point) => [point.blockNumber, point.volumeRao])).toEqual([
      ["100", "0"],
      ["101", "5000000000"],
      ["102", BIG.toString()],
      ["103", "7"],
      ["110", "4"],
    ]);
  });

  it("a pool whose blocks swapped nothing answers 0, not null", async () => {
    await network("netuid:4", pool(4, 200, { blockVolumeRao: "0" }), pool(4, 201, { blockVolumeRao: "0" }));
    expect(await latest(4)).toMatchObject({ volumeTotalRao: "0", volumeSinceBlock: "200", volume24hRao: "0" });
  });
});

describe("pool volumes from SubnetVolume", () => {
  it("volume_total_rao is the runtime's counter, without a since block; a counter that went down gives no 24 h volume, never a negative one", async () => {
    await network(
      "netuid:5",
      pool(5, 300, { volumeTotalRao: "900", blockVolumeRao: "1" }),
      pool(5, 301, { volumeTotalRao: "950", blockVolumeRao: "50" }),
    );
    const before = await latest(5);
    // Since the series' first snapshot (the counter before it is unknown).
    expect(before).toMatchObject({ volumeTotalRao: "950", volume24hRao: "50" });
    expect(before.volumeSinceBlock).toBeUndefined();
    // A re-registered subnet starts its SubnetVolume again.
    await network("netuid:5", pool(5, 302, { volumeTotalRao: "100", blockVolumeRao: "100" }));
    const reset = await latest(5);
    expect(reset.volumeTotalRao).toBe("100");
    expect(reset.volume24hRao).toBeUndefined();
  });
});

describe("pool order flow: buys and sells over 24 hours, distinct buyers and sellers", () => {
  const key = (byte: string) => `0x${byte.repeat(64)}`;
  /** A spec-218 snapshot of netuid 6 whose block bought `buy` rao in `buys` stakes and sold `sell` rao in `sells` unstakes. */
  const traded = (
    block: number,
    buy: bigint,
    sell: bigint,
    buyers: string[],
    sellers: string[],
    buys = buyers.length,
    sells = sellers.length,
  ) =>
    pool(6, block, {
      blockVolumeRao: (buy + sell).toString(),
      blockFlow: {
        buyVolumeRao: buy.toString(),
        sellVolumeRao: sell.toString(),
        buys,
        sells,
        buyers: buyers.map(key),
        sellers: sellers.map(key),
      },
    });
  it("splits the 24 h volume into buys and sells, counts events and distinct coldkeys, and drops what left the window", async () => {
    await network(
      "netuid:6",
      // a buys twice in one block (two stakes, one buyer) and sells; b buys.
      traded(1_000, 3n, 1n, ["a", "b"], ["a"], 3, 1),
      traded(1_001, BIG, 0n, ["a"], []),
      traded(1_002, 0n, 9n, [], ["c"]),
    );
    expect(await latest(6)).toMatchObject({
      blockNumber: "1002",
      volume24hRao: (13n + BIG).toString(),
      taoBuyVolume24hRao: (3n + BIG).toString(),
      taoSellVolume24hRao: "10",
      buys24h: "4",
      sells24h: "2",
      buyers24h: "2",
      sellers24h: "2",
    });
    // A recent block keeps its own counts (what a block_number read answers), matched by its hash.
    expect(await poolTradersAt(redis, [{ netuid: 6, ref: ref(1_001) }])).toEqual([{ buyers: 2, sellers: 1 }]);
    expect(
      await poolTradersAt(redis, [{ netuid: 6, ref: { ...ref(1_001), blockHash: `0x${"f".repeat(64)}` } }]),
    ).toEqual([undefined]);

    // 7,300 blocks on (more than 24 hours): only the new block's flow and traders count.
    await network("netuid:6", traded(8_302, 5n, 0n, ["d"], []));
    expect(await latest(6)).toMatchObject({
      blockNumber: "8302",
      volume24hRao: "5",
      taoBuyVolume24hRao: "5",
      taoSellVolume24hRao: "0",
      buys24h: "1",
      sells24h: "0",
      buyers24h: "1",
      sellers24h: "0",
    });
  });

  it("leaves buys and traders unknown (absent) for snapshots that carry no order flow", async () => {
    await network("netuid:7", pool(7, 400, { blockVolumeRao: "3" }));
    const answer = await latest(7);
    expect(answer.volume24hRao).toBe("3");
    for (const field of ["taoBuyVolume24hRao", "taoSellVolume24hRao", "buys24h", "sells24h", "buyers24h", "sellers24h"])
      expect(answer[field as keyof typeof answer]).toBeUndefined();
  });
});
