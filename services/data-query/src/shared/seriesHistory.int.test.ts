/*
 * The series histories (network stats, a subnet's emissions, a subnet's settings) across both
 * stores: Redis, written by the projector's own projections, keeps each series' newest 64 points;
 * PostgreSQL (history.series_points) every point, inserted here as the projector writes them (the
 * SeriesPoint JSON the zset held, keyed by its Redis points key). A window spanning both answers
 * every bucket once, in order, whichever store holds its reading.
 */
import { join } from "node:path";
import { Metadata } from "@grpc/grpc-js";
import { AppError } from "@platform/errors";
import { callUnary, createGrpcClient, type RunningGrpcServer, startGrpcServer } from "@platform/grpc";
import type { HistoryDb } from "@platform/history";
import { type HistoryServer, startHistoryServer } from "@platform/history/testing";
import { Interval, SortOrder, type TimeWindow } from "@platform/proto/common/v1/common";
import { PoolMechanism } from "@platform/proto/common/v1/network";
import { type GetNetworkStatsHistoryRequest, MarketServiceClient } from "@platform/proto/data/v1/market";
import { SubnetsServiceClient } from "@platform/proto/data/v1/subnets";
import type { NetworkChainEvent } from "@platform/proto/events/v1/chain_network";
import { encodePayload, TOPICS } from "@platform/proto/topics";
import { marketKeys, subnetsKeys } from "@platform/read-models";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marketProjection } from "../../../projector/src/market/projection.js";
import { subnetsProjection } from "../../../projector/src/subnets/projection.js";
import { marketGrpcService } from "../market/index.js";
import { subnetsGrpcService } from "../subnets/index.js";
import {
  consumedRecord,
  hashOf,
  networkRecord,
  projectionBatch,
  ref,
  silentLog,
  T0,
  timeOf,
} from "./testSupport/networkRecords.js";

const dir = tempDir("data-query-series-history");
const log = silentLog();
// 12 s blocks from T0: block b at T0 + 12 b s, so a 5-minute bucket k ends after block 25 k + 24.
const BLOCKS = 300;
// Ingestion missed blocks 140..159 of the network stats: the bucket ending in the gap carries 139 forward.
const statsMissing = (block: number) => block >= 140 && block < 160;
// A subnet snapshot every 4th block: 75 of them, of which Redis keeps the newest 64 (blocks 44..296).
const subnetAt = (block: number) => block % 4 === 0;

let redisServer: RunningRedis;
let redis: Redis;
let historyServer: HistoryServer;
let historyDb: HistoryDb;
let servers: RunningGrpcServer[] = [];
/** Clients of a data-query with the history database, and of one without (Redis alone). */
let withHistory: { market: MarketServiceClient; subnets: SubnetsServiceClient };
let redisOnly: { market: MarketServiceClient; subnets: SubnetsServiceClient };

function eventsOf(block: number): NetworkChainEvent[] {
  const events: NetworkChainEvent[] = [
    {
      event: {
        $case: "poolSnapshot",
        value: {
          ref: ref(block),
          netuid: 1,
          mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
          taoInRao: "1000",
          alphaInNalpha: "4000",
          alphaOutNalpha: "1000",
          alphaIssuanceNalpha: "5000",
          priceTao: "0.25",
        },
      },
    },
    {
      event: {
        $case: "emissionSnapshot",
        value: {
          ref: ref(block),
          netuid: 1,
          emissionEnabled: true,
          taoInEmissionRao: String(1_000 + block),
          blockEmissionRao: "1000000000",
          tempo: 360,
        },
      },
    },
  ];
  if (!statsMissing(block))
    events.push({
      event: {
        $case: "networkStatsSnapshot",
        value: {
          ref: ref(block),
          totalIssuanceRao: "10000000000",
          totalStakeRao: String(block),
          stakedRootRao: "1",
          stakedAlphaPoolsRao: "2",
          blockEmissionRao: "1000000000",
          taoWeight: "0.18",
          rootNetuid: 0,
          subnetsCount: 2,
          subnetLimit: 128,
        },
      },
    });
  if (subnetAt(block))
    events.push({
      event: {
        $case: "subnetSnapshot",
        value: {
          ref: ref(block),
          netuid: 1,
          name: "sn1",
          registeredAtBlock: "0",
          mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
          tempo: 360,
          uidCount: block,
          emissionEnabled: true,
          yuma3Enabled: false,
        },
      },
    });
  return events;
}

/** Applies one block through both projections, the way the projector consumes chain.network.v1. */
async function applyBlock(block: number): Promise<void> {
  const messages = eventsOf(block).map((event, index) => networkRecord(block * 10 + index, "netuid:1", event));
  const batch = projectionBatch(
    TOPICS.chainNetwork.name,
    messages,
    messages.at(-1)!.offset,
    block === 0 ? undefined : String((block - 1) * 10 + eventsOf(block - 1).length - 1),
  );
  await marketProjection({ redis, log }).handleBatch(batch);
  await subnetsProjection({ redis, log }).handleBatch(batch);
}

/** Three TAO/USD rounds on the oracle chain (its own blocks 10, 20, 30), at 10, 20 and 30 minutes. */
const ROUNDS = [10, 20, 30].map((block, index) => ({ block, price: String(100 + index), timeMs: T0 + block * 60_000 }));

async function applyRounds(): Promise<void> {
  const messages = ROUNDS.map(({ block, price, timeMs }, index) =>
    consumedRecord(
      TOPICS.oraclePrices.name,
      index,
      "TAO",
      encodePayload(TOPICS.oraclePrices, {
        event: {
          $case: "priceObserved",
          value: {
            ref: { ...ref(block), chainId: "31337", blockTimestamp: new Date(timeMs).toISOString() },
            asset: "TAO",
            vs: "usd",
            price,
            answer: `${price}00000000`,
            decimals: 8,
            roundId: String(index + 1),
            updatedAt: new Date(timeMs).toISOString(),
            feedAddress: "0x00000000000000000000000000000000000000Fe",
            provider: "chainlink",
          },
        },
      }),
    ),
  );
  await marketProjection({ redis, log }).handleBatch(
    projectionBatch(TOPICS.oraclePrices.name, messages, String(messages.length - 1), undefined),
  );
}

const SERIES = [marketKeys.statsPoints, marketKeys.emissionPoints(1), subnetsKeys.subnetPoints(1)];

/** Every point the projections wrote, into history.series_points (the projector's PostgreSQL copy). */
async function copyToHistory(writer: HistoryDb, points: Map<string, string>): Promise<void> {
  const rows = [...points].map(([key, text]) => {
    const point = JSON.parse(text) as { o: number; b: number };
    return [key.split("|")[0]!, point.b, point.o, text] as const;
  });
  await writer.unsafe(
    "insert into history.series_points select * from unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[])",
    [
      rows.map((row) => row[0]),
      rows.map((row) => row[1]),
      rows.map((row) => row[2]),
      rows.map((row) => row[3]),
    ] as never,
  );
}

function clientsOf(server: RunningGrpcServer) {
  const target = `127.0.0.1:${server.port}`;
  return {
    market: createGrpcClient(MarketServiceClient, { target, deadlineMs: 10_000 }),
    subnets: createGrpcClient(SubnetsServiceClient, { target, deadlineMs: 10_000 }),
  };
}

async function serve(history: HistoryDb | undefined) {
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    services: [
      marketGrpcService({ redis, log, history }),
      subnetsGrpcService({ redis, log, history, answerCacheMaxBytes: 1 << 20 }),
    ],
  });
  server.setServing(true);
  servers.push(server);
  return clientsOf(server);
}

beforeAll(async () => {
  redisServer = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: redisServer.url, connectionName: "series-history-test", commandTimeoutMs: 10_000 });
  await waitFor(async () => redis.status === "ready", { what: "redis connection" });
  historyServer = await startHistoryServer();
  const writer = historyServer.connect("postgres");
  historyDb = historyServer.connect("data_query");
  await writer`select history.ensure_block_partitions('series_points', 0, 1000)`;
  // Each point as the projection wrote it, read back right after its block (before Redis trims it).
  const written = new Map<string, string>();
  for (let block = 0; block < BLOCKS; block += 1) {
    await applyBlock(block);
    for (const key of SERIES) {
      const [text] = await redis.zrevrangebyscore(key, "+inf", `${block * 100_000}`, "LIMIT", 0, 1);
      if (text !== undefined) written.set(`${key}|${block}`, text);
    }
  }
  await applyRounds();
  const pricePoints = await redis.zrange(marketKeys.pricePoints("TAO", "usd"), "0", "-1");
  pricePoints.forEach((text, index) => written.set(`${marketKeys.pricePoints("TAO", "usd")}|r${index}`, text));
  await copyToHistory(writer, written);
  // Redis keeps the newest 10,000 rounds; here its hot window is made to start at the second round.
  await redis.zremrangebyrank(marketKeys.pricePoints("TAO", "usd"), 0, 0);
  withHistory = await serve(historyDb);
  redisOnly = await serve(undefined);
}, 120_000);

afterAll(async () => {
  for (const clients of [withHistory, redisOnly]) {
    clients?.market.close();
    clients?.subnets.close();
  }
  await Promise.all(servers.map((server) => server.shutdown(1_000)));
  servers = [];
  redis?.disconnect();
  await redisServer?.stop();
  await historyServer?.stop();
  dir.remove();
}, 30_000);

const HOUR_WINDOW: TimeWindow = {
  start: new Date(T0).toISOString(),
  end: new Date(T0 + 3_600_000).toISOString(),
  interval: Interval.INTERVAL_FIVE_MINUTES,
};
const bucketStart = (k: number) => new Date(T0 + k * 300_000).toISOString();
const codeOf = async (pending: Promise<unknown>) => {
  try {
    await pending;
    return "OK";
  } catch (error) {
    return error instanceof AppError ? error.code : String(error);
  }
};

function statsHistory(clients: typeof withHistory, request: Partial<GetNetworkStatsHistoryRequest>) {
  const market = clients.market;
  return callUnary(
    market,
    market.getNetworkStatsHistory,
    { window: HOUR_WINDOW, order: SortOrder.SORT_ORDER_UNSPECIFIED, ...request },
    new Metadata(),
  );
}
const emissionsHistory = (netuid: number) =>
  callUnary(
    withHistory.market,
    withHistory.market.getSubnetEmissionsHistory,
    { netuid, window: HOUR_WINDOW, order: SortOrder.SORT_ORDER_UNSPECIFIED },
    new Metadata(),
  );
const subnetsHistory = (clients: typeof withHistory) =>
  callUnary(
    clients.subnets,
    clients.subnets.getSubnetsHistory,
    { netuid: 1, window: HOUR_WINDOW, order: SortOrder.SORT_ORDER_UNSPECIFIED },
    new Metadata(),
  );

describe("network/stats/history across Redis and PostgreSQL", () => {
  it("answers every 5-minute bucket of an hour once, in order, older ones from PostgreSQL and newer ones from Redis", async () => {
    const answer = await statsHistory(withHistory, {});
    expect(answer.asOf).toMatchObject({ blockNumber: "299", blockHash: hashOf(299) });
    expect(answer.interval).toBe(Interval.INTERVAL_FIVE_MINUTES);
    // Redis holds blocks 236..299: buckets 0..8 are read in PostgreSQL, 9..11 in Redis. Bucket 5
    // ends in the gap (140..159) and carries block 139 forward.
    const expected = [24, 49, 74, 99, 124, 139, 174, 199, 224, 249, 274, 299];
    expect(answer.points.map((point) => point.bucketStart)).toEqual(expected.map((_block, k) => bucketStart(k)));
    expect(answer.points.map((point) => point.stats?.asOf?.blockNumber)).toEqual(expected.map(String));
    expect(answer.points.map((point) => point.stats?.totalStakeRao)).toEqual(expected.map(String));
    expect(answer.points[0]!.stats).toMatchObject({
      totalIssuanceRao: "10000000000",
      maxSupplyRao: "21000000000000000",
      subnetsCount: 2,
      asOf: { timestamp: new Date(timeOf(24)).toISOString() },
    });
    expect(answer.page).toEqual({ limit: 500, hasMore: false });
  });

  it("pages by bucket with a cursor, in either order, and refuses a cursor of another query", async () => {
    const blocks = async (order: SortOrder) => {
      const seen: string[] = [];
      let cursor = "";
      for (let round = 0; round < 10; round += 1) {
        const page = await statsHistory(withHistory, { order, page: { limit: 5, cursor } });
        seen.push(...page.points.map((point) => point.stats!.asOf!.blockNumber));
        if (!page.page?.hasMore) return seen;
        cursor = page.page.nextCursor!;
      }
      throw new Error("did not end");
    };
    const ascending = await blocks(SortOrder.SORT_ORDER_ASC);
    expect(ascending).toHaveLength(12);
    expect(await blocks(SortOrder.SORT_ORDER_DESC)).toEqual([...ascending].reverse());
    const first = await statsHistory(withHistory, { page: { limit: 5, cursor: "" } });
    expect(
      await codeOf(
        statsHistory(withHistory, {
          window: { ...HOUR_WINDOW, interval: Interval.INTERVAL_ONE_HOUR },
          page: { limit: 5, cursor: first.page!.nextCursor! },
        }),
      ),
    ).toBe("INVALID_CURSOR");
  });

  it("samples a long window at its interval: one hourly point for the hour", async () => {
    const answer = await statsHistory(withHistory, {
      window: {
        start: new Date(T0 - 30 * 86_400_000).toISOString(),
        end: HOUR_WINDOW.end,
        interval: Interval.INTERVAL_ONE_HOUR,
      },
    });
    expect(answer.points.map((point) => [point.bucketStart, point.stats?.asOf?.blockNumber])).toEqual([
      [bucketStart(0), "299"],
    ]);
  });

  it("without a history database answers from Redis' hot window alone", async () => {
    const answer = await statsHistory(redisOnly, {});
    expect(answer.points.map((point) => point.stats?.asOf?.blockNumber)).toEqual(["249", "274", "299"]);
  });

  it("refuses windows over the interval's maximum, block bounds and intervals it has no buckets for", async () => {
    const week = { start: new Date(T0).toISOString(), end: new Date(T0 + 8 * 86_400_000).toISOString() };
    expect(
      await codeOf(statsHistory(withHistory, { window: { ...week, interval: Interval.INTERVAL_FIVE_MINUTES } })),
    ).toBe("WINDOW_TOO_LARGE");
    expect(await codeOf(statsHistory(withHistory, { window: { blockStart: "1", blockEnd: "2", interval: 0 } }))).toBe(
      "INVALID_PARAMETER",
    );
    expect(
      await codeOf(statsHistory(withHistory, { window: { ...HOUR_WINDOW, interval: Interval.INTERVAL_BLOCK } })),
    ).toBe("INVALID_PARAMETER");
  });
});

describe("subnet-emissions/history and subnets/history", () => {
  it("answer one subnet's emission per bucket across both stores", async () => {
    const answer = await emissionsHistory(1);
    const expected = [24, 49, 74, 99, 124, 149, 174, 199, 224, 249, 274, 299];
    expect(answer.points.map((point) => point.blockNumber)).toEqual(expected.map(String));
    expect(answer.points.map((point) => point.emission?.taoInEmissionRao)).toEqual(
      expected.map((b) => String(1_000 + b)),
    );
    expect(answer.points[0]).toMatchObject({ bucketStart: bucketStart(0), emission: { netuid: 1 } });
    expect(await codeOf(emissionsHistory(9))).toBe("NETUID_NOT_FOUND");
  });

  it("carry a subnet's settings forward between its snapshots, the oldest from PostgreSQL", async () => {
    const answer = await subnetsHistory(withHistory);
    expect(answer.asOf?.blockNumber).toBe("299");
    // Snapshots every 4th block; Redis keeps blocks 44..296, so bucket 0 (block 24) comes from PostgreSQL.
    const expected = [24, 48, 72, 96, 124, 148, 172, 196, 224, 248, 272, 296];
    expect(answer.points.map((point) => point.blockNumber)).toEqual(expected.map(String));
    expect(answer.points.map((point) => point.subnet?.uidCount)).toEqual(expected);
    expect(answer.points[0]!.subnet?.name).toBe("sn1");
    const redisAlone = await subnetsHistory(redisOnly);
    expect(redisAlone.points.map((point) => point.blockNumber)).toEqual(expected.slice(1).map(String));
  });
});

describe("coin/price/latest at a time", () => {
  const priceAt = (clients: typeof withHistory, at: string | undefined) =>
    callUnary(
      clients.market,
      clients.market.getPriceLatest,
      { vs: "usd", ...(at === undefined ? {} : { at }) },
      new Metadata(),
    );
  const minute = (m: number) => new Date(T0 + m * 60_000).toISOString();

  it("answers the round in force at that time, older than Redis' hot window from PostgreSQL", async () => {
    expect((await priceAt(withHistory, undefined)).price).toBe("102");
    expect(await priceAt(withHistory, minute(15))).toMatchObject({
      price: "100",
      asOf: { chainId: "31337", blockNumber: "10" },
      source: { roundId: "1" },
    });
    expect((await priceAt(withHistory, minute(20))).price).toBe("101");
    expect((await priceAt(withHistory, minute(25))).source?.roundId).toBe("2");
    // The supply is the native chain's at that time: network stats of block 124 (24 min 48 s).
    expect((await priceAt(withHistory, minute(25))).totalIssuanceRao).toBe("10000000000");
  });

  it("answers 404 for a time before the first round or still to come, and refuses a malformed one", async () => {
    expect(await codeOf(priceAt(withHistory, minute(5)))).toBe("TIME_BEFORE_HISTORY");
    expect(await codeOf(priceAt(withHistory, new Date(Date.now() + 3_600_000).toISOString()))).toBe(
      "TIME_NOT_YET_INDEXED",
    );
    expect(await codeOf(priceAt(withHistory, "yesterday"))).toBe("INVALID_PARAMETER");
    // Without the history database the round before Redis' hot window is not known.
    expect(await codeOf(priceAt(redisOnly, minute(15)))).toBe("TIME_BEFORE_HISTORY");
    expect((await priceAt(redisOnly, minute(25))).price).toBe("101");
  });
});
