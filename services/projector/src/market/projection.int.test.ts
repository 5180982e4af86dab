import { join } from "node:path";
import { Writable } from "node:stream";
import { createKafkaClient, createPublisher, type Kafka, type Publisher } from "@platform/bus";
import { type HistoryDb, historyTables } from "@platform/history";
import { type HistoryServer, startHistoryServer } from "@platform/history/testing";
import { createLogger, type Logger } from "@platform/log";
import { type ChainRef, Finality } from "@platform/proto/common/v1/common";
import { HolderCoverage, PoolMechanism } from "@platform/proto/common/v1/network";
import { HolderPositions, type NetworkChainEvent, PoolSnapshot } from "@platform/proto/events/v1/chain_network";
import { type PriceEvent, PriceObserved } from "@platform/proto/events/v1/oracle_prices";
import { holderSetDelta, holderSetDigest, sortHolderPositions } from "@platform/proto/holderSets";
import { encodePayload, eventTypeOf, TOPICS } from "@platform/proto/topics";
import {
  dataChangeLog,
  marketKeys,
  readModelVersionKeys,
  type SeriesPoint,
  subnetsKeys,
  traderBlockPrefix,
  wholeHolderPoints,
} from "@platform/read-models";
import type { Signals } from "@platform/signals";
import { createRedis, type Redis } from "@platform/store";
import { type RunningKafka, type RunningRedis, startKafka, startRedis, tempDir, waitFor } from "@platform/testing";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSubnetsProjection } from "../subnets/index.js";
import type { ProjectionSupervisor } from "../supervisor/projectionSupervisor.js";
import { startMarketProjection } from "./index.js";

/*
 * The market and subnets projections against one real Kafka broker, a real Redis and a real
 * PostgreSQL (the history store): snapshots published as the network ingestor publishes them (key
 * netuid:<n>, network, asset), read back through the documented key layout, and each series'
 * PostgreSQL copy equal to the Redis one (beyond the Redis window, PostgreSQL keeps every point);
 * then FLUSHALL and the rebuild from offset 0, which PostgreSQL (already holding every record)
 * applies nothing of twice.
 */

const dir = tempDir("projector-market");
const log: Logger = createLogger({
  service: "projector-test",
  level: "warn",
  destination: new Writable({ write: (_chunk, _encoding, callback) => callback() }),
});
const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);

let kafkaServer: RunningKafka;
let redisServer: RunningRedis;
let historyServer: HistoryServer;
/** The history database as data-query reads it (select only). */
let historyReader: HistoryDb;
let kafka: Kafka;
let redis: Redis;
let marketRedis: Redis;
let subnetsRedis: Redis;
let publisher: Publisher;
let market: ProjectionSupervisor;
let subnets: ProjectionSupervisor;
/** The process's registry, as main.ts hands it to every projection. */
const registry = new Registry();

/** A sample of the registry's text output, as a scraper reads it; undefined when absent. */
async function scrape(line: string): Promise<number | undefined> {
  const found = (await registry.metrics()).split("\n").find((entry) => entry.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}
/** What the projections announced on NATS (a stand-in that records each publish). */
const announced: Array<[string, unknown]> = [];
const signals = {
  publish: (subject: string, payload: unknown) => announced.push([subject, payload]) > 0,
} as unknown as Signals;

beforeAll(async () => {
  [kafkaServer, redisServer, historyServer] = await Promise.all([
    startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") }),
    startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") }),
    startHistoryServer({ dataDir: join(dir.path, "postgres") }),
  ]);
  historyReader = historyServer.connect("data_query");
  kafka = createKafkaClient({ brokers: kafkaServer.brokers, clientId: "projector-test", logger: log });
  redis = createRedis({ url: redisServer.url, connectionName: "projector-test" });
  marketRedis = createRedis({
    url: redisServer.url,
    connectionName: "projector-test-market",
    commandTimeoutMs: 10_000,
  });
  subnetsRedis = createRedis({
    url: redisServer.url,
    connectionName: "projector-test-subnets",
    commandTimeoutMs: 10_000,
  });
  const history = historyServer.connect("projector");
  const common = { kafka, redis, history, log, signals, replicationFactor: 1, intervalMs: 300, registry };
  market = startMarketProjection({ ...common, projectionRedis: marketRedis });
  subnets = startSubnetsProjection({ ...common, projectionRedis: subnetsRedis });
  await waitFor(async () => (await market.check.probe()) && (await subnets.check.probe()), {
    what: "projections running",
    timeoutMs: 60_000,
  });
  publisher = await createPublisher(kafka);
}, 120_000);

afterAll(async () => {
  await Promise.all([market?.stop(), subnets?.stop()]);
  await publisher?.disconnect().catch(() => undefined);
  redis?.disconnect();
  marketRedis?.disconnect();
  subnetsRedis?.disconnect();
  await Promise.all([kafkaServer?.stop(), redisServer?.stop(), historyServer?.stop()]);
  dir.remove();
}, 60_000);

const hashOf = (block: number, fork = "a") => `0x${fork.repeat(2)}${block.toString(16).padStart(62, "0")}`;
const ref = (block: number, fork = "a", logIndex?: number): ChainRef => ({
  chainId: "945",
  blockNumber: String(block),
  blockHash: hashOf(block, fork),
  parentHash: hashOf(block - 1, fork),
  blockTimestamp: new Date(T0 + block * 12_000).toISOString(),
  finality: Finality.FINALITY_LATEST,
  ...(logIndex === undefined ? {} : { txHash: `0x${"1".repeat(64)}`, logIndex }),
});
const account = (byte: string) => ({ ss58: `ss58-${byte}`, publicKey: `0x${byte.repeat(64)}` });

const pool = (netuid: number, block: number, price: string, volume: string, fork = "a"): NetworkChainEvent => ({
  event: {
    $case: "poolSnapshot",
    value: {
      ref: ref(block, fork),
      netuid,
      mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
      taoInRao: "1000000000000",
      alphaInNalpha: "2000000000000",
      alphaOutNalpha: "500000000000",
      alphaIssuanceNalpha: "2500000000000",
      priceTao: price,
      movingPriceTao: price,
      volumeTotalRao: volume,
    },
  },
});
const removed = (key: string, type: string, block: number, fork = "a"): NetworkChainEvent => ({
  event: {
    $case: "chainEventRemoved",
    value: {
      removed: ref(block, fork),
      removedEventId: "x",
      removedEventType: type,
      key,
      commonAncestorBlockNumber: String(block - 1),
      commonAncestorBlockHash: hashOf(block - 1),
      detectedAt: new Date().toISOString(),
    },
  },
});
const holders = (
  netuid: number,
  block: number,
  index: number,
  count: number,
  positions: [string, string, string][],
): NetworkChainEvent => ({
  event: {
    $case: "holderPositions",
    value: {
      ref: ref(block),
      netuid,
      coverage: HolderCoverage.HOLDER_COVERAGE_COMPLETE,
      chunkIndex: index,
      chunkCount: count,
      positions: positions.map(([coldkey, hotkey, alpha]) => ({
        coldkey: account(coldkey),
        hotkey: account(hotkey),
        alphaNalpha: alpha,
      })),
    },
  },
});
const price = (block: number, value: string, logIndex: number): PriceEvent => ({
  event: {
    $case: "priceObserved",
    value: {
      ref: ref(block, "a", logIndex),
      asset: "TAO",
      vs: "usd",
      price: value,
      answer: "0",
      decimals: 8,
      roundId: String(block),
      updatedAt: new Date(T0 + block * 12_000).toISOString(),
      feedAddress: "0x0000000000000000000000000000000000000Fee",
      provider: "chainlink",
    },
  },
});

async function publishNetwork(key: string, ...events: NetworkChainEvent[]): Promise<void> {
  await publisher.publish(
    events.map((payload) => ({
      topic: TOPICS.chainNetwork.name,
      key,
      value: encodePayload(TOPICS.chainNetwork, payload),
      eventType: eventTypeOf(payload),
      schema: TOPICS.chainNetwork.schema,
    })),
  );
}
async function publishPrice(...events: PriceEvent[]): Promise<void> {
  await publisher.publish(
    events.map((payload) => ({
      topic: TOPICS.oraclePrices.name,
      key: "TAO",
      value: encodePayload(TOPICS.oraclePrices, payload),
      eventType: eventTypeOf(payload),
      schema: TOPICS.oraclePrices.schema,
    })),
  );
}

const points = async (key: string): Promise<SeriesPoint[]> =>
  (await redis.zrange(key, "0", "-1")).map((text) => JSON.parse(text) as SeriesPoint);
/** A series' points in PostgreSQL, oldest first. */
const historyPoints = async (key: string): Promise<SeriesPoint[]> =>
  (
    await historyReader.unsafe(
      `select point from ${historyTables.seriesPoints} where series = $1 order by block, ordinal`,
      [key],
    )
  ).map((row) => JSON.parse(row.point as string) as SeriesPoint);
/**
 * Waits until the series' PostgreSQL copy equals its Redis one (PostgreSQL commits first, Redis
 * after); holder sets kept there as deltas are compared as the whole sets they make.
 */
const expectHistoryEqualsRedis = async (...keys: string[]): Promise<void> => {
  for (const key of keys)
    await waitFor(
      async () => JSON.stringify(wholeHolderPoints(await historyPoints(key))) === JSON.stringify(await points(key)),
      {
        what: `${key} alike in PostgreSQL and Redis`,
        timeoutMs: 30_000,
      },
    );
};
/** The price of a pool's standing newest snapshot (what data-query values positions with). */
const poolPrice = async (netuid: number): Promise<string | undefined> =>
  (await points(marketKeys.poolPoints(netuid))).at(-1)?.m?.price;

describe("market and subnets projections: pool, price and network series", () => {
  it("folds pool snapshots into series and candles; a removal restores the previous snapshot", async () => {
    await publishNetwork("netuid:1", pool(1, 10, "0.5", "100"), pool(1, 11, "0.75", "130"), pool(1, 12, "0.25", "150"));
    await publishNetwork("netuid:2", pool(2, 10, "2", "0"));
    // Subnet 2's record may travel on another partition: wait for both, not only the one read first.
    await waitFor(async () => (await poolPrice(1)) === "0.25" && (await redis.sismember(marketKeys.pools, "2")) === 1, {
      what: "pool 1 at block 12 and pool 2",
      timeoutMs: 30_000,
    });
    const series = await points(marketKeys.poolPoints(1));
    expect(series.map((point) => point.b)).toEqual([10, 11, 12]);
    const candle = JSON.parse((await redis.zrange(marketKeys.poolBuckets(1, "1h"), "-1", "-1"))[0]!);
    expect(candle).toMatchObject({ o: "0.5", h: "0.75", l: "0.25", c: "0.25", v0: "100", v1: "150", b: 12 });
    expect((await redis.smembers(marketKeys.pools)).sort()).toEqual(["1", "2"]);

    // A reorganisation undoes block 12 and block 12' replaces it.
    await publishNetwork("netuid:1", removed("netuid:1", "PoolSnapshot", 12));
    await waitFor(async () => (await poolPrice(1)) === "0.75", { what: "block 12 taken back", timeoutMs: 30_000 });
    const back = JSON.parse((await redis.zrange(marketKeys.poolBuckets(1, "1h"), "-1", "-1"))[0]!);
    expect(back).toMatchObject({ o: "0.5", h: "0.75", l: "0.5", c: "0.75", v1: "130", b: 11 });
    await publishNetwork("netuid:1", pool(1, 12, "0.8", "160", "b"));
    await waitFor(async () => (await poolPrice(1)) === "0.8", { what: "fork block 12", timeoutMs: 30_000 });
    expect((await points(marketKeys.poolPoints(1))).map((point) => point.h)).toEqual([
      hashOf(10),
      hashOf(11),
      hashOf(12, "b"),
    ]);
    // The history copy went through the same reorganisation: block 12 of fork a is gone, the buckets' aggregates alike.
    await expectHistoryEqualsRedis(marketKeys.poolPoints(1), marketKeys.poolPoints(2));
  });

  it("folds price rounds, emissions and network stats", async () => {
    await publishPrice(price(10, "300", 1), price(10, "310", 4), price(20, "290", 0));
    await publishNetwork("network", {
      event: {
        $case: "networkStatsSnapshot",
        value: {
          ref: ref(20),
          totalIssuanceRao: "1",
          totalStakeRao: "1",
          stakedRootRao: "0",
          stakedAlphaPoolsRao: "1",
          blockEmissionRao: "1000000000",
          taoWeight: "0.18",
          rootNetuid: 0,
          subnetsCount: 2,
          subnetLimit: 128,
        },
      },
    });
    await waitFor(
      async () =>
        (await redis.zcard(marketKeys.pricePoints("TAO", "usd"))) === 3 &&
        (await redis.zcard(marketKeys.statsPoints)) === 1,
      { what: "price and stats", timeoutMs: 30_000 },
    );
    const candle = JSON.parse((await redis.zrange(marketKeys.priceBuckets("TAO", "usd", "1h"), "-1", "-1"))[0]!);
    expect(candle).toMatchObject({ o: "300", h: "310", l: "290", c: "290" });
    expect(await redis.sismember(marketKeys.pricePairs, "TAO:usd")).toBe(1);
    await expectHistoryEqualsRedis(marketKeys.pricePoints("TAO", "usd"), marketKeys.statsPoints);
  });

  it("takes a price round back by its removal on oracle.prices.v1, where the price source publishes it", async () => {
    await publishPrice(price(30, "280", 2));
    const latestPrice = async () =>
      (JSON.parse((await redis.zrange(marketKeys.pricePoints("TAO", "usd"), "-1", "-1"))[0] ?? "{}") as SeriesPoint).m
        ?.price;
    await waitFor(async () => (await latestPrice()) === "280", { what: "the round of block 30", timeoutMs: 30_000 });
    await publishPrice({
      event: {
        $case: "chainEventRemoved",
        value: {
          removed: ref(30, "a", 2),
          removedEventId: "x",
          removedEventType: "PriceObserved",
          key: "TAO",
          commonAncestorBlockNumber: "29",
          commonAncestorBlockHash: hashOf(29),
          detectedAt: new Date().toISOString(),
        },
      },
    });
    await waitFor(async () => (await latestPrice()) === "290", {
      what: "the round of block 30 taken back",
      timeoutMs: 30_000,
    });
    await expectHistoryEqualsRedis(marketKeys.pricePoints("TAO", "usd"));
  });

  it("keeps every point in PostgreSQL while Redis keeps its window of the newest", async () => {
    const emission = (block: number): NetworkChainEvent => ({
      event: {
        $case: "emissionSnapshot",
        value: {
          ref: ref(block),
          netuid: 9,
          emissionEnabled: true,
          taoInEmissionRao: String(block),
          blockEmissionRao: "0",
          tempo: 360,
        },
      },
    });
    // 70 blocks of one subnet's emissions: Redis keeps the newest 64 (market/keys.ts), PostgreSQL all.
    await publishNetwork("netuid:9", ...Array.from({ length: 70 }, (_, index) => emission(1_000 + index)));
    await waitFor(async () => (await historyPoints(marketKeys.emissionPoints(9))).length === 70, {
      what: "70 emission points in PostgreSQL",
      timeoutMs: 30_000,
    });
    await waitFor(async () => (await points(marketKeys.emissionPoints(9))).at(-1)?.b === 1_069, {
      what: "the newest emission point in Redis",
      timeoutMs: 30_000,
    });
    const kept = await points(marketKeys.emissionPoints(9));
    expect(kept.map((point) => point.b)).toEqual(Array.from({ length: 64 }, (_, index) => 1_006 + index));
    expect((await historyPoints(marketKeys.emissionPoints(9))).slice(6)).toEqual(kept);
  });
});

describe("market and subnets projections: a pool's running volume", () => {
  /** A pool snapshot of spec 218's kind: no SubnetVolume, the block's own volume; `parentFork` names the parent's branch. */
  const swapped = (block: number, volume: bigint, fork = "a", parentFork = fork): NetworkChainEvent => {
    const { value } = pool(8, block, "1", "0", fork).event as { value: PoolSnapshot };
    const { volumeTotalRao: _none, ...rest } = value;
    return {
      event: {
        $case: "poolSnapshot",
        value: {
          ...rest,
          ref: { ...ref(block, fork), parentHash: hashOf(block - 1, parentFork) },
          blockVolumeRao: volume.toString(),
        },
      },
    };
  };
  /** Beyond 2^53. */
  const BIG = 2n ** 60n + 3n;
  const newest = async () => (await points(marketKeys.poolPoints(8))).at(-1);
  const bucket5m = async () =>
    JSON.parse((await redis.zrange(marketKeys.poolBuckets(8, "5m"), "-1", "-1"))[0]!) as Record<string, unknown>;
  const historyBuckets = async () =>
    (
      await historyReader.unsafe(
        `select aggregate from ${historyTables.seriesBuckets} where series = $1 and bucket = '5m' order by start`,
        [marketKeys.poolPoints(8)],
      )
    ).map((row) => JSON.parse(row.aggregate as string) as Record<string, unknown>);

  it("sums the snapshots' block volumes through a reorganisation and a gap, alike in Redis and PostgreSQL", async () => {
    await publishNetwork("netuid:8", swapped(60, 0n), swapped(61, BIG), swapped(62, 5n));
    await waitFor(async () => (await newest())?.b === 62, { what: "pool 8 at block 62", timeoutMs: 30_000 });
    expect((await newest())?.w).toEqual({ s: 60, v: (BIG + 5n).toString() });
    expect(await bucket5m()).toMatchObject({ v0: "0", v1: (BIG + 5n).toString(), b: 62 });

    // A reorganisation takes block 62 back; block 62' swapped more.
    await publishNetwork("netuid:8", removed("netuid:8", "PoolSnapshot", 62));
    await waitFor(async () => (await newest())?.b === 61, { what: "block 62 taken back", timeoutMs: 30_000 });
    expect((await newest())?.w).toEqual({ s: 60, v: BIG.toString() });
    await publishNetwork("netuid:8", swapped(62, 9n, "b", "a"), swapped(63, 1n, "b"));
    await waitFor(async () => (await newest())?.b === 63, { what: "fork block 63", timeoutMs: 30_000 });
    expect((await newest())?.w).toEqual({ s: 60, v: (BIG + 10n).toString() });

    // A gap (blocks 64-65 never came): a new run from block 66, while the buckets' counter goes on.
    await publishNetwork("netuid:8", swapped(66, 4n, "b"));
    await waitFor(async () => (await newest())?.b === 66, { what: "block 66", timeoutMs: 30_000 });
    expect((await newest())?.w).toEqual({ s: 66, v: "4" });
    expect((await newest())?.m?.cumulative).toBe((BIG + 14n).toString());
    expect(await bucket5m()).toMatchObject({ v0: "0", v1: (BIG + 14n).toString(), b: 66 });

    await expectHistoryEqualsRedis(marketKeys.poolPoints(8));
    await waitFor(
      async () =>
        JSON.stringify(await historyBuckets()) ===
        JSON.stringify(
          (await redis.zrange(marketKeys.poolBuckets(8, "5m"), "0", "-1")).map((text) => JSON.parse(text)),
        ),
      { what: "pool 8's buckets alike in PostgreSQL and Redis", timeoutMs: 30_000 },
    );
  });
});

describe("market and subnets projections: a pool's order flow and distinct traders", () => {
  const coldkey = (byte: string) => `0x${byte.repeat(64)}`;
  /** A spec-218 pool snapshot of netuid 9 with its block's buys and sells (TAO, count) and traders. */
  const traded = (
    block: number,
    flow: { buy: bigint; sell: bigint; buys: number; sells: number; buyers: string[]; sellers: string[] },
    fork = "a",
    parentFork = fork,
  ): NetworkChainEvent => {
    const { value } = pool(9, block, "1", "0", fork).event as { value: PoolSnapshot };
    const { volumeTotalRao: _none, ...rest } = value;
    return {
      event: {
        $case: "poolSnapshot",
        value: {
          ...rest,
          ref: { ...ref(block, fork), parentHash: hashOf(block - 1, parentFork) },
          blockVolumeRao: (flow.buy + flow.sell).toString(),
          blockFlow: {
            buyVolumeRao: flow.buy.toString(),
            sellVolumeRao: flow.sell.toString(),
            buys: flow.buys,
            sells: flow.sells,
            buyers: flow.buyers.map(coldkey),
            sellers: flow.sellers.map(coldkey),
          },
        },
      },
    };
  };
  const newest = async () => (await points(marketKeys.poolPoints(9))).at(-1);
  /** The distinct buyers and sellers the projector recorded through a block of a hash, if any. */
  const countsAt = async (block: number, fork = "a") => {
    const members = await redis.zrangebyscore(marketKeys.poolTraderCounts(9), block, block);
    const found = members.find((member) => member.startsWith(traderBlockPrefix(block, hashOf(block, fork))));
    return found?.split(":").slice(2).map(Number);
  };
  const distinct = async () => [
    await redis.hlen(marketKeys.poolTraderKeys(9, "buyers")),
    await redis.hlen(marketKeys.poolTraderKeys(9, "sellers")),
  ];

  it("sums buys and sells apart, counts distinct coldkeys over 7,200 blocks, and forgets a removed block's traders", async () => {
    await publishNetwork(
      "netuid:9",
      traded(100, { buy: 10n, sell: 3n, buys: 2, sells: 1, buyers: ["a", "b"], sellers: ["a"] }),
      traded(101, { buy: 2n ** 60n, sell: 0n, buys: 1, sells: 0, buyers: ["a"], sellers: [] }),
      traded(102, { buy: 5n, sell: 7n, buys: 1, sells: 1, buyers: ["c"], sellers: ["d"] }),
    );
    await waitFor(async () => (await newest())?.b === 102, { what: "pool 9 at block 102", timeoutMs: 30_000 });
    expect((await newest())?.m?.flow).toEqual({ b: (2n ** 60n + 15n).toString(), s: "10", bn: "4", sn: "2" });
    expect(JSON.parse((await redis.zrange(marketKeys.poolBuckets(9, "5m"), "-1", "-1"))[0]!)).toMatchObject({
      f0: { b: "0", s: "0", bn: "0", sn: "0" },
      f1: { b: (2n ** 60n + 15n).toString(), s: "10", bn: "4", sn: "2" },
    });
    // a bought twice: one buyer. Each block keeps the counts through it.
    expect(await countsAt(100)).toEqual([2, 1]);
    expect(await countsAt(101)).toEqual([2, 1]);
    expect(await countsAt(102)).toEqual([3, 2]);

    // A reorganisation takes block 102 back: c and d traded only there, so they are no longer counted.
    await publishNetwork("netuid:9", removed("netuid:9", "PoolSnapshot", 102));
    await waitFor(async () => (await newest())?.b === 101, { what: "block 102 taken back", timeoutMs: 30_000 });
    await waitFor(async () => (await countsAt(102)) === undefined, {
      what: "block 102's counts gone",
      timeoutMs: 30_000,
    });
    expect(await distinct()).toEqual([2, 1]);
    expect((await newest())?.m?.flow).toEqual({ b: (2n ** 60n + 10n).toString(), s: "3", bn: "3", sn: "1" });
    // Block 102' on the other branch: a buys again, e sells.
    await publishNetwork(
      "netuid:9",
      traded(102, { buy: 1n, sell: 1n, buys: 1, sells: 1, buyers: ["a"], sellers: ["e"] }, "b", "a"),
    );
    await waitFor(async () => (await countsAt(102, "b")) !== undefined, { what: "block 102'", timeoutMs: 30_000 });
    expect(await countsAt(102, "b")).toEqual([2, 2]);

    // 7,200 blocks on (a gap): blocks 101 and below leave the window; a's buy at 102' stays in it.
    await publishNetwork(
      "netuid:9",
      traded(7_301, { buy: 4n, sell: 0n, buys: 1, sells: 0, buyers: ["f"], sellers: [] }, "b"),
    );
    await waitFor(async () => (await newest())?.b === 7_301, { what: "block 7301", timeoutMs: 30_000 });
    expect(await countsAt(7_301, "b")).toEqual([2, 1]);
    expect(await distinct()).toEqual([2, 1]);
    expect(await redis.zcard(marketKeys.poolTraders(9, "buyers"))).toBe(2);
    // The flow counters never go down across the gap; PostgreSQL keeps the same points.
    expect((await newest())?.m?.flow).toEqual({ b: (2n ** 60n + 15n).toString(), s: "4", bn: "5", sn: "2" });
    await expectHistoryEqualsRedis(marketKeys.poolPoints(9));
  });
});

describe("market and subnets projections: the data change log", () => {
  it("appends each new pool snapshot and price round, and each read model's new head, with the commit", async () => {
    const { key, fields } = dataChangeLog;
    const before = (await redis.xrevrange(key, "+", "-", "COUNT", 1))[0]?.[0] ?? "0-0";
    await publishNetwork("netuid:77", pool(77, 500, "0.5", "10"), pool(77, 501, "0.6", "20"));
    await publishPrice(price(502, "333", 2));
    const entries = async () =>
      (await redis.xrangeBuffer(key, `(${before}`, "+")).map(([, flat]) => {
        const byName = new Map<string, Buffer>();
        for (let i = 0; i + 1 < flat.length; i += 2) byName.set(flat[i]!.toString(), flat[i + 1]!);
        return byName;
      });
    await waitFor(async () => (await entries()).some((entry) => entry.get(fields.kind)?.toString() === "price"), {
      what: "the price entry",
      timeoutMs: 30_000,
    });
    await waitFor(
      async () =>
        (await entries()).some(
          (entry) =>
            entry.get(fields.readModel)?.toString() === "market" && entry.get(fields.blockNumber)?.toString() === "501",
        ),
      { what: "the market head at 501", timeoutMs: 30_000 },
    );
    const all = await entries();
    const pools = all
      .filter((entry) => entry.get(fields.kind)?.toString() === "pool")
      .map((entry) => PoolSnapshot.decode(entry.get(fields.bytes)!))
      .filter((snapshot) => snapshot.netuid === 77);
    expect(pools.map((snapshot) => [snapshot.priceTao, snapshot.ref?.blockNumber])).toEqual([
      ["0.5", "500"],
      ["0.6", "501"],
    ]);
    const prices = all
      .filter((entry) => entry.get(fields.kind)?.toString() === "price")
      .map((entry) => PriceObserved.decode(entry.get(fields.bytes)!));
    expect(prices.map((round) => round.price)).toContain("333");
    const head = all.find(
      (entry) =>
        entry.get(fields.readModel)?.toString() === "market" && entry.get(fields.blockNumber)?.toString() === "501",
    )!;
    expect(head.get(fields.blockHash)?.toString()).toBe(hashOf(501));
    // Both read models stand at least at that block, as the projector exports it (the subnets
    // projection keeps its own copy of the pool snapshots).
    for (const readModel of ["market", "subnets"])
      await waitFor(async () => ((await scrape(`read_model_as_of_block{read_model="${readModel}"}`)) ?? 0) >= 501, {
        what: `${readModel} as_of exported`,
        timeoutMs: 10_000,
      });
    expect(await scrape('read_model_as_of_age_seconds{read_model="market"}')).toBeDefined();
  });
});

describe("market and subnets projections: holder rankings and subnet snapshots", () => {
  it("assembles holder chunks before replacing a subnet's ranking, and follows removals", async () => {
    await publishNetwork(
      "netuid:3",
      holders(3, 30, 0, 1, [
        ["a", "1", "10"],
        ["b", "1", "30"],
      ]),
    );
    await waitFor(async () => (await redis.zcard(subnetsKeys.holderColdkeys(3))) === 2, {
      what: "first holder set",
      timeoutMs: 30_000,
    });
    // Block 31 in two chunks: after the first the ranking still shows block 30.
    await publishNetwork("netuid:3", holders(3, 31, 1, 2, [["c", "2", "50"]]));
    await waitFor(async () => (await redis.hlen(subnetsKeys.holderChunks(3))) === 1, {
      what: "pending chunk",
      timeoutMs: 30_000,
    });
    expect(await redis.zcard(subnetsKeys.holderColdkeys(3))).toBe(2);
    // PostgreSQL keeps the pending chunk too (a commit there assembles the set by itself).
    await waitFor(
      async () =>
        (
          await historyReader.unsafe(`select field from ${historyTables.projectionState} where key = $1`, [
            subnetsKeys.holderChunks(3),
          ])
        ).length === 1,
      { what: "the pending chunk in PostgreSQL", timeoutMs: 30_000 },
    );
    await publishNetwork(
      "netuid:3",
      holders(3, 31, 0, 2, [
        ["a", "1", "5"],
        ["a", "2", "7"],
      ]),
    );
    await waitFor(
      async () =>
        (await redis.zcard(subnetsKeys.holderColdkeys(3))) === 2 &&
        (await redis.hexists(subnetsKeys.holderColdkeyRows(3), `0x${"c".repeat(64)}`)) === 1,
      {
        what: "second holder set",
        timeoutMs: 30_000,
      },
    );
    const top = await redis.zrangebylex(subnetsKeys.holderColdkeys(3), "-", "+");
    expect(top.map((member) => member.slice(25))).toEqual([`0x${"c".repeat(64)}`, `0x${"a".repeat(64)}`]);
    expect(JSON.parse((await redis.hget(subnetsKeys.holderColdkeyRows(3), `0x${"a".repeat(64)}`))!)).toMatchObject({
      alpha: "12",
    });
    expect(await redis.exists(subnetsKeys.holderChunks(3))).toBe(0);

    await publishNetwork(
      "netuid:3",
      removed("netuid:3", "HolderPositions", 31),
      removed("netuid:3", "HolderPositions", 31),
    );
    await waitFor(async () => (await redis.hexists(subnetsKeys.holderColdkeyRows(3), `0x${"b".repeat(64)}`)) === 1, {
      what: "holder set of block 30 again",
      timeoutMs: 30_000,
    });
    expect(await redis.get(subnetsKeys.holderRanked(3))).toBe(`3000000:${hashOf(30)}`);
    await expectHistoryEqualsRedis(subnetsKeys.holderPoints(3));
  });
});

describe("market and subnets projections: holder deltas", () => {
  it("applies holder deltas to the set before them in both stores, across a reorganisation, and skips one whose base it lacks", async () => {
    const setAt = (block: number, positions: [string, string, string][]) => {
      const event = holders(4, block, 0, 1, positions);
      const value = (event.event as { value: HolderPositions }).value;
      const sorted = sortHolderPositions(value.positions);
      return { ...value, positions: sorted, digest: holderSetDigest(sorted) };
    };
    const asEvent = (value: HolderPositions): NetworkChainEvent => ({ event: { $case: "holderPositions", value } });
    const deltaOf = (before: HolderPositions, after: HolderPositions) =>
      asEvent({ ...after, positions: holderSetDelta(before.positions, after.positions), baseDigest: before.digest });
    const standing = async () => {
      const newest = (await points(subnetsKeys.holderPoints(4))).at(-1);
      return newest === undefined ? undefined : HolderPositions.decode(Buffer.from(newest.p, "base64"));
    };
    const at40 = setAt(40, [
      ["a", "1", "10"],
      ["b", "1", "30"],
    ]);
    const at41 = setAt(41, [
      ["a", "1", "10"],
      ["b", "1", "35"],
      ["c", "2", "5"],
    ]);
    const at42 = setAt(42, [
      ["b", "1", "35"],
      ["c", "2", "6"],
    ]);
    await publishNetwork("netuid:4", asEvent(at40), deltaOf(at40, at41));
    await publishNetwork("netuid:4", deltaOf(at41, at42));
    await waitFor(async () => (await standing())?.ref?.blockNumber === "42", {
      what: "block 42's set",
      timeoutMs: 30_000,
    });
    expect((await standing())?.positions).toEqual(at42.positions);
    expect((await standing())?.digest).toEqual(at42.digest);
    expect(JSON.parse((await redis.hget(subnetsKeys.holderColdkeyRows(4), `0x${"c".repeat(64)}`))!)).toMatchObject({
      alpha: "6",
    });
    await expectHistoryEqualsRedis(subnetsKeys.holderPoints(4));

    // Block 42 is taken back; the new fork's 42 is a delta against block 41's set, which stands again.
    const fork42 = {
      ...setAt(42, [
        ["d", "3", "9"],
        ["a", "1", "10"],
        ["b", "1", "35"],
        ["c", "2", "5"],
      ]),
      ref: ref(42, "b"),
    };
    await publishNetwork("netuid:4", removed("netuid:4", "HolderPositions", 42), deltaOf(at41, fork42));
    await waitFor(async () => (await standing())?.ref?.blockHash === hashOf(42, "b"), {
      what: "the new fork's set",
      timeoutMs: 30_000,
    });
    expect((await standing())?.positions).toEqual(fork42.positions);
    await expectHistoryEqualsRedis(subnetsKeys.holderPoints(4));

    // A delta whose base is not the standing set is skipped; the next keyframe is taken whole.
    await publishNetwork(
      "netuid:4",
      deltaOf(at42, setAt(43, [["e", "1", "1"]])),
      asEvent(setAt(44, [["f", "1", "2"]])),
    );
    await waitFor(async () => (await standing())?.ref?.blockNumber === "44", {
      what: "block 44's keyframe",
      timeoutMs: 30_000,
    });
    expect((await points(subnetsKeys.holderPoints(4))).map((point) => point.b)).not.toContain(43);
    await expectHistoryEqualsRedis(subnetsKeys.holderPoints(4));
    // PostgreSQL keeps what came: keyframes whole, deltas as deltas (the skipped one too, which a
    // read skips alike), so a day of holder sets costs a keyframe and the changes.
    const kept = await historyPoints(subnetsKeys.holderPoints(4));
    expect(kept.map((point) => [point.b, point.d ?? 0])).toEqual([
      [40, 0],
      [41, 1],
      [42, 1],
      [43, 1],
      [44, 0],
    ]);
    expect(HolderPositions.decode(Buffer.from(kept[1]!.p, "base64")).positions).toHaveLength(2);
    const columns = await historyReader.unsafe(
      `select block, keyframe, time_ms::float8 as time from ${historyTables.seriesPoints} where series = $1 order by block`,
      [subnetsKeys.holderPoints(4)],
    );
    expect(columns.map((row) => [row.keyframe, row.time])).toEqual(
      kept.map((point) => [point.d === undefined, point.t]),
    );
  });
});

describe("market and subnets projections: subnet snapshots", () => {
  it("keeps subnet snapshots per block and knows the subnet while one stands", async () => {
    const subnet = (block: number): NetworkChainEvent => ({
      event: {
        $case: "subnetSnapshot",
        value: {
          ref: ref(block),
          netuid: 4,
          name: `four-${block}`,
          registeredAtBlock: "1",
          mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
          tempo: 360,
          uidCount: 2,
          emissionEnabled: true,
          yuma3Enabled: false,
        },
      },
    });
    await publishNetwork("netuid:4", subnet(40), subnet(41));
    await waitFor(async () => (await redis.zcard(subnetsKeys.subnetPoints(4))) === 2, {
      what: "subnet snapshots",
      timeoutMs: 30_000,
    });
    expect(await redis.sismember(subnetsKeys.netuids, "4")).toBe(1);
    await publishNetwork(
      "netuid:4",
      removed("netuid:4", "SubnetSnapshot", 41),
      removed("netuid:4", "SubnetSnapshot", 40),
    );
    await waitFor(async () => (await redis.sismember(subnetsKeys.netuids, "4")) === 0, {
      what: "subnet gone",
      timeoutMs: 30_000,
    });
  });
});

describe("market and subnets projections: root stakes moved without the metagraph", () => {
  it("keeps each ValidatorRootStakes as a point of its own series, taken back by its removal", async () => {
    const moved = (block: number, stake: string): NetworkChainEvent => ({
      event: {
        $case: "validatorRootStakes",
        value: { ref: ref(block), netuid: 6, stakes: [{ uid: 0, hotkey: `0x${"1".repeat(64)}`, rootStakeRao: stake }] },
      },
    });
    await publishNetwork("netuid:6", moved(60, "10"), moved(61, "20"));
    await waitFor(async () => (await redis.zcard(subnetsKeys.validatorRootStakePoints(6))) === 2, {
      what: "two root-stake points",
      timeoutMs: 30_000,
    });
    await publishNetwork("netuid:6", removed("netuid:6", "ValidatorRootStakes", 61));
    await waitFor(async () => (await redis.zcard(subnetsKeys.validatorRootStakePoints(6))) === 1, {
      what: "block 61's root stakes taken back",
      timeoutMs: 30_000,
    });
    await expectHistoryEqualsRedis(subnetsKeys.validatorRootStakePoints(6));
  });
});

describe("market and subnets projections: removed and re-registered subnets", () => {
  it("stops listing a removed subnet, lists it again when the removal is undone, and when the netuid is registered again", async () => {
    const subnet = (block: number): NetworkChainEvent => ({
      event: {
        $case: "subnetSnapshot",
        value: {
          ref: ref(block),
          netuid: 5,
          name: `five-${block}`,
          registeredAtBlock: "1",
          mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
          tempo: 360,
          uidCount: 2,
          emissionEnabled: true,
          yuma3Enabled: false,
        },
      },
    });
    const gone = (block: number): NetworkChainEvent => ({
      event: { $case: "subnetRemoved", value: { ref: ref(block), netuid: 5 } },
    });
    const listed = async () => [
      await redis.sismember(marketKeys.pools, "5"),
      await redis.sismember(subnetsKeys.netuids, "5"),
    ];
    await publishNetwork("netuid:5", pool(5, 50, "1", "0"), subnet(50));
    await waitFor(async () => (await listed()).join() === "1,1", { what: "subnet 5 listed", timeoutMs: 30_000 });

    await publishNetwork("netuid:5", gone(51));
    await waitFor(async () => (await listed()).join() === "0,0", { what: "subnet 5 removed", timeoutMs: 30_000 });
    // Its history stays.
    expect(await redis.zcard(marketKeys.poolPoints(5))).toBe(1);

    await publishNetwork("netuid:5", removed("netuid:5", "SubnetRemoved", 51));
    await waitFor(async () => (await listed()).join() === "1,1", { what: "removal undone", timeoutMs: 30_000 });

    await publishNetwork("netuid:5", gone(52));
    await waitFor(async () => (await listed()).join() === "0,0", { what: "subnet 5 removed again", timeoutMs: 30_000 });
    await publishNetwork("netuid:5", pool(5, 60, "2", "0"), subnet(60));
    await waitFor(async () => (await listed()).join() === "1,1", {
      what: "netuid 5 registered again",
      timeoutMs: 30_000,
    });
  });
});

// Runs last: it rebuilds what the tests above projected.
describe("market and subnets projections: restore after FLUSHALL", () => {
  it("copies both read models back from PostgreSQL and replays none of the topics", async () => {
    const keys = [
      marketKeys.poolPoints(1),
      marketKeys.poolBuckets(1, "1h"),
      marketKeys.pricePoints("TAO", "usd"),
      marketKeys.priceBuckets("TAO", "usd", "5m"),
      marketKeys.emissionPoints(9),
      subnetsKeys.holderColdkeys(3),
      // Kept as deltas in PostgreSQL (the holder deltas test): copied back as whole sets.
      subnetsKeys.holderPoints(4),
      subnetsKeys.validatorRootStakePoints(6),
    ];
    const zsets = async () => Promise.all(keys.map((key) => redis.zrange(key, "0", "-1", "WITHSCORES")));
    const sets = async () =>
      Promise.all(
        [marketKeys.pools, marketKeys.emissions, marketKeys.pricePairs, subnetsKeys.netuids].map(async (key) =>
          (await redis.smembers(key)).sort(),
        ),
      );
    // Pool 9's distinct traders (the order flow test), Redis-only: rebuilt from its restored points.
    const traders = async () => [
      await redis.zrange(marketKeys.poolTraders(9, "buyers"), "0", "-1", "WITHSCORES"),
      await redis.zrange(marketKeys.poolTraders(9, "sellers"), "0", "-1", "WITHSCORES"),
      await redis.hgetall(marketKeys.poolTraderKeys(9, "buyers")),
      await redis.hgetall(marketKeys.poolTraderKeys(9, "sellers")),
      await redis.zrange(marketKeys.poolTraderCounts(9), "0", "-1"),
    ];
    const before = {
      zsets: await zsets(),
      sets: await sets(),
      rows: await redis.hgetall(subnetsKeys.holderColdkeyRows(3)),
      traders: await traders(),
    };
    // The counts of blocks 100, 101, 102' and 7,301.
    expect(before.traders[4]).toHaveLength(4);
    await redis.flushall();
    await waitFor(
      async () =>
        (await redis.get(marketKeys.marker)) === "complete" && (await redis.get(subnetsKeys.marker)) === "complete",
      { what: "both read models complete again", timeoutMs: 60_000 },
    );
    expect(await zsets()).toEqual(before.zsets);
    expect(await sets()).toEqual(before.sets);
    expect(await redis.hgetall(subnetsKeys.holderColdkeyRows(3))).toEqual(before.rows);
    expect(await traders()).toEqual(before.traders);
    // Nothing was folded again: a replay from offset 0 would have logged every pool snapshot anew.
    const logged = await redis.xrange(dataChangeLog.key, "-", "+");
    expect(logged.filter(([, fields]) => fields[fields.indexOf(dataChangeLog.fields.kind) + 1] === "pool")).toEqual([]);
    await expectHistoryEqualsRedis(marketKeys.poolPoints(1), subnetsKeys.holderPoints(3), subnetsKeys.subnetPoints(4));
  }, 90_000);
});

describe("market and subnets projections: change signals", () => {
  it("announce each commit on readmodel.changed.<projection> with the version token it stored", async () => {
    announced.length = 0;
    await publishNetwork("netuid:7", pool(7, 30, "1.5", "10"));
    await waitFor(async () => (await poolPrice(7)) === "1.5", { what: "pool 7 projected", timeoutMs: 30_000 });
    // Once both have committed the record, the last announcement of each names the version that stands.
    const lastOf = (projection: "market" | "subnets") =>
      announced.filter(([subject]) => subject === `readmodel.changed.${projection}`).at(-1)?.[1];
    await waitFor(
      async () => {
        for (const projection of ["market", "subnets"] as const) {
          const version = await redis.get(readModelVersionKeys[projection]);
          if (JSON.stringify(lastOf(projection)) !== JSON.stringify({ projection, version })) return false;
        }
        return true;
      },
      { what: "each projection's last signal naming its stored version", timeoutMs: 30_000 },
    );
    expect(announced.every(([subject]) => /^readmodel\.changed\.(market|subnets)$/.test(subject))).toBe(true);
  });
});
