import { join } from "node:path";
import { Metadata } from "@grpc/grpc-js";
import { AppError } from "@platform/errors";
import { callUnary, createGrpcClient, type RunningGrpcServer, startGrpcServer } from "@platform/grpc";
import { Interval } from "@platform/proto/common/v1/common";
import { HolderCoverage, PoolMechanism } from "@platform/proto/common/v1/network";
import { MarketServiceClient, type MarketServiceService, PoolSort } from "@platform/proto/data/v1/market";
import {
  HolderGrouping,
  SubnetsServiceClient,
  type SubnetsServiceService,
  ValidatorSort,
} from "@platform/proto/data/v1/subnets";
import type { NetworkChainEvent, NeuronState } from "@platform/proto/events/v1/chain_network";
import type { PriceEvent } from "@platform/proto/events/v1/oracle_prices";
import { encodePayload, TOPICS } from "@platform/proto/topics";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The read model is written by the projector's own projections (no Kafka here), so this is also
// the contract test between services/projector/src/{market,subnets}/keys.ts and these readers.
import { marketProjection } from "../../../projector/src/market/projection.js";
import { subnetsProjection } from "../../../projector/src/subnets/projection.js";
import { guardedByMarkers, PROJECTION_MARKERS } from "../shared/rebuildGuard.js";
import {
  account,
  batchMaker,
  hashOf,
  networkValues,
  ref,
  silentLog,
  T0,
  timeOf,
} from "../shared/testSupport/networkRecords.js";
import { subnetsGrpcService } from "../subnets/index.js";
import { marketGrpcService } from "./index.js";

const dir = tempDir("data-query-market");
const log = silentLog();

let redisServer: RunningRedis;
let redis: Redis;
let server: RunningGrpcServer;
let market: MarketServiceClient;
let subnets: SubnetsServiceClient;

const nextBatch = batchMaker();
async function apply(topic: string, key: string, values: Uint8Array[]): Promise<void> {
  const batch = nextBatch(topic, key, values);
  await marketProjection({ redis, log }).handleBatch(batch);
  const subnetsBatch = { ...batch, previousOffset: batch.previousOffset };
  if (topic === TOPICS.chainNetwork.name) await subnetsProjection({ redis, log }).handleBatch(subnetsBatch);
}
const network = (key: string, ...events: NetworkChainEvent[]) =>
  apply(TOPICS.chainNetwork.name, key, networkValues(events));
const prices = (...events: PriceEvent[]) =>
  apply(
    TOPICS.oraclePrices.name,
    "TAO",
    events.map((event) => encodePayload(TOPICS.oraclePrices, event)),
  );

const pool = (netuid: number, block: number, price: string, volume: string): NetworkChainEvent => ({
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
      priceTao: price,
      movingPriceTao: price,
      volumeTotalRao: volume,
    },
  },
});
const neuron = (uid: number, permit: boolean, alpha: string, root: string): NeuronState => ({
  uid,
  hotkey: account(`${uid}a`.slice(0, 1)),
  coldkey: account(String(uid)),
  validatorPermit: permit,
  active: true,
  alphaStakeNalpha: alpha,
  rootStakeRao: root,
  dividends: "0.1",
  vtrust: "0.9",
  incentive: "0",
  consensus: "0",
  emissionNalpha: "5",
  lastUpdateBlock: "440",
  identity: { name: `v${uid}`, url: "", githubRepo: "", image: "", discord: "", description: "", additional: "" },
});
const subnetSnapshot = (netuid: number, block: number): NetworkChainEvent => ({
  event: {
    $case: "subnetSnapshot",
    value: {
      ref: ref(block),
      netuid,
      name: `sn${netuid}`,
      symbol: "α",
      registeredAtBlock: String(netuid),
      mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
      tempo: 360,
      uidCount: 3,
      emissionEnabled: true,
      yuma3Enabled: false,
      registration: {
        allowed: true,
        powAllowed: false,
        burnRao: String(netuid * 100),
        minBurnRao: "1",
        maxBurnRao: "1000",
        difficulty: "1",
      },
    },
  },
});

// The request and answer types of each method, from the generated service definitions.
type Definitions = typeof MarketServiceService & typeof SubnetsServiceService;
type RequestOf<K extends keyof Definitions> = Parameters<Definitions[K]["requestSerialize"]>[0];
type AnswerOf<K extends keyof Definitions> = ReturnType<Definitions[K]["responseDeserialize"]>;

/** Calls a unary method by name, the way the gateway does (callUnary with metadata). */
function call<K extends keyof Definitions>(
  client: MarketServiceClient | SubnetsServiceClient,
  name: K,
  request: Partial<RequestOf<K>>,
): Promise<AnswerOf<K>> {
  const method = (client as unknown as Record<string, Parameters<typeof callUnary>[1]>)[name]!;
  return callUnary(client, method, request, new Metadata()) as Promise<AnswerOf<K>>;
}

const grpcCode = async (pending: Promise<unknown>): Promise<string> => {
  try {
    await pending;
    return "OK";
  } catch (error) {
    return error instanceof AppError ? error.code : String(error);
  }
};

beforeAll(async () => {
  redisServer = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: redisServer.url, connectionName: "data-query-test", commandTimeoutMs: 10_000 });
  await waitFor(async () => redis.status === "ready", { what: "redis connection" });
  server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    services: [marketGrpcService({ redis, log }), subnetsGrpcService({ redis, log, answerCacheMaxBytes: 1 << 20 })],
  });
  server.setServing(true);
  market = createGrpcClient(MarketServiceClient, { target: `127.0.0.1:${server.port}`, deadlineMs: 10_000 });
  subnets = createGrpcClient(SubnetsServiceClient, { target: `127.0.0.1:${server.port}`, deadlineMs: 10_000 });

  // Price rounds at block 0 (T0) and block 400 (T0 + 80 min).
  await prices(
    {
      event: {
        $case: "priceObserved",
        value: {
          ref: ref(0, 1),
          asset: "TAO",
          vs: "usd",
          price: "100",
          answer: "10000000000",
          decimals: 8,
          roundId: "1",
          updatedAt: new Date(timeOf(0)).toISOString(),
          feedAddress: "0x00000000000000000000000000000000000000Fe",
          provider: "chainlink",
        },
      },
    },
    {
      event: {
        $case: "priceObserved",
        value: {
          ref: ref(400, 2),
          asset: "TAO",
          vs: "usd",
          price: "110",
          answer: "11000000000",
          decimals: 8,
          roundId: "2",
          updatedAt: new Date(timeOf(400)).toISOString(),
          feedAddress: "0x00000000000000000000000000000000000000Fe",
          provider: "chainlink",
        },
      },
    },
  );
  // Pools 1 and 2; pool 2 is a block ahead (its partition ran ahead).
  for (const block of [0, 400, 450])
    await network(
      "netuid:1",
      subnetSnapshot(1, block),
      pool(1, block, block === 0 ? "0.2" : "0.25", String(block * 10)),
    );
  await network("netuid:2", subnetSnapshot(2, 450), pool(2, 450, "0.5", "7"), pool(2, 451, "0.6", "9"));
  await network(
    "netuid:1",
    {
      event: {
        $case: "emissionSnapshot",
        value: {
          ref: ref(450),
          netuid: 1,
          emissionEnabled: true,
          taoInEmissionRao: "400000000",
          alphaInEmissionNalpha: "1",
          alphaOutEmissionNalpha: "1000000000",
          excessTaoRao: "100000000",
          blockEmissionRao: "1000000000",
          ownerCut: "0.18",
          rootProp: "0.5",
          tempo: 360,
          lastEpochBlock: "360",
          nextEpochBlock: "720",
        },
      },
    },
    {
      event: {
        $case: "validatorSetSnapshot",
        value: {
          ref: ref(450),
          netuid: 1,
          neurons: [neuron(0, true, "1000", "0"), neuron(1, true, "4000", "100"), neuron(2, false, "9000", "0")],
        },
      },
    },
    {
      event: {
        $case: "holderPositions",
        value: {
          ref: ref(450),
          netuid: 1,
          coverage: HolderCoverage.HOLDER_COVERAGE_COMPLETE,
          chunkIndex: 0,
          chunkCount: 1,
          positions: [
            { coldkey: account("1"), hotkey: account("a"), alphaNalpha: "300" },
            { coldkey: account("2"), hotkey: account("a"), alphaNalpha: "500" },
            { coldkey: account("1"), hotkey: account("b"), alphaNalpha: "400" },
            { coldkey: account("3"), hotkey: account("b"), alphaNalpha: "100" },
          ],
        },
      },
    },
  );
  await network("network", {
    event: {
      $case: "networkStatsSnapshot",
      value: {
        ref: ref(450),
        totalIssuanceRao: "10000000000000000",
        totalStakeRao: "4000000000000000",
        stakedRootRao: "1",
        stakedAlphaPoolsRao: "2",
        subnetLockedRao: "1000000000000000",
        blockEmissionRao: "1000000000",
        taoWeight: "0.18",
        rootNetuid: 0,
        subnetsCount: 2,
        subnetLimit: 128,
      },
    },
  });
}, 60_000);

afterAll(async () => {
  market?.close();
  subnets?.close();
  await server?.shutdown(1_000);
  redis?.disconnect();
  await redisServer?.stop();
  dir.remove();
}, 30_000);

describe("MarketService: TAO price and network stats", () => {
  it("GetPriceLatest answers the newest round with its changes and supply", async () => {
    const latest = await call(market, "getPriceLatest", { vs: "" });
    expect(latest).toMatchObject({
      price: "110",
      vs: "usd",
      symbol: "TAO",
      asOf: { blockNumber: "400", blockHash: hashOf(400) },
      priceChange1hPct: "10",
      circulatingSupplyTao: "10000000",
      marketCapUsd: "1100000000",
    });
    expect(latest.priceChange24hPct).toBeUndefined();
    expect(await grpcCode(call(market, "getPriceLatest", { vs: "eur" }))).toBe("INVALID_PARAMETER");
  });

  it("GetPriceHistory pages candles by cursor and refuses oversized windows and bad cursors", async () => {
    const window = {
      start: new Date(T0).toISOString(),
      end: new Date(T0 + 2 * 3_600_000).toISOString(),
      interval: Interval.INTERVAL_ONE_HOUR,
    };
    const first = await call(market, "getPriceHistory", {
      vs: "usd",
      window,
      format: 0,
      order: 0,
      page: { limit: 1, cursor: "" },
    });
    expect(first.candles).toEqual([
      { bucketStart: new Date(T0).toISOString(), open: "100", high: "100", low: "100", close: "100" },
    ]);
    expect(first.page?.hasMore).toBe(true);
    const second = await call(market, "getPriceHistory", {
      vs: "usd",
      window,
      format: 0,
      order: 0,
      page: { limit: 1, cursor: first.page!.nextCursor! },
    });
    expect(second.candles.map((candle) => candle.close)).toEqual(["110"]);
    expect(second.page?.hasMore).toBe(false);
    const tooWide = {
      start: new Date(T0).toISOString(),
      end: new Date(T0 + 8 * 86_400_000).toISOString(),
      interval: Interval.INTERVAL_FIVE_MINUTES,
    };
    expect(await grpcCode(call(market, "getPriceHistory", { vs: "usd", window: tooWide, format: 0, order: 0 }))).toBe(
      "WINDOW_TOO_LARGE",
    );
    expect(
      await grpcCode(
        call(market, "getPriceHistory", {
          vs: "usd",
          window,
          format: 0,
          order: 0,
          page: { limit: 1, cursor: "bogus" },
        }),
      ),
    ).toBe("INVALID_CURSOR");
  });

  it("GetNetworkStatsLatest derives free stake, swap volume and the burn range", async () => {
    const stats = await call(market, "getNetworkStatsLatest", {});
    expect(stats).toMatchObject({
      asOf: { blockNumber: "450" },
      freeRao: "5000000000000000",
      maxSupplyRao: "21000000000000000",
      blocksPerDay: 7200,
      volume: { swapVolume24hRao: "4500" },
      registration: { neuronBurn: { minRao: "100", medianRao: "100", maxRao: "200" } },
    });
  });
});

describe("MarketService: subnet pools", () => {
  it("GetSubnetPoolsLatest answers every pool at the block all reached, sorted and paged", async () => {
    const all = await call(market, "getSubnetPoolsLatest", {
      netuids: [],
      includeRoot: false,
      sort: PoolSort.POOL_SORT_NETUID,
      order: 1,
    });
    expect(all.asOf?.blockNumber).toBe("450");
    expect(all.pools.map((entry) => [entry.netuid, entry.priceTao, entry.blockNumber])).toEqual([
      [1, "0.25", "450"],
      [2, "0.5", "450"],
    ]);
    expect(all.pools[0]).toMatchObject({
      name: "sn1",
      marketCapRao: "1250000000000",
      liquidityRao: "2000000000000",
      reserveRatioTao: "0.25",
      priceUsd: "27.5",
      priceChange1hPct: "25",
      volume24hRao: "4500",
    });
    const first = await call(market, "getSubnetPoolsLatest", {
      netuids: [],
      includeRoot: false,
      sort: 0,
      order: 0,
      page: { limit: 1, cursor: "" },
    });
    expect(first.pools.map((entry) => entry.netuid)).toEqual([2]);
    const next = await call(market, "getSubnetPoolsLatest", {
      netuids: [],
      includeRoot: false,
      sort: 0,
      order: 0,
      page: { limit: 1, cursor: first.page!.nextCursor! },
    });
    expect(next.pools.map((entry) => entry.netuid)).toEqual([1]);
    expect(next.page?.hasMore).toBe(false);
    expect(
      await grpcCode(call(market, "getSubnetPoolsLatest", { netuids: [99], includeRoot: false, sort: 0, order: 0 })),
    ).toBe("NETUID_NOT_FOUND");
  });

  it("GetSubnetPoolsHistory answers buckets and per-block points", async () => {
    const hourly = await call(market, "getSubnetPoolsHistory", {
      netuids: [1],
      window: {
        start: new Date(T0).toISOString(),
        end: new Date(T0 + 2 * 3_600_000).toISOString(),
        interval: Interval.INTERVAL_ONE_HOUR,
      },
      format: 0,
      order: 0,
    });
    expect(
      hourly.points.map((point) => [
        point.bucketStart,
        point.priceOpenTao,
        point.priceCloseTao,
        point.volumeRao,
        point.blockNumber,
      ]),
    ).toEqual([
      [new Date(T0).toISOString(), "0.2", "0.2", "0", "0"],
      [new Date(T0 + 3_600_000).toISOString(), "0.25", "0.25", "4500", "450"],
    ]);
    const blocks = await call(market, "getSubnetPoolsHistory", {
      netuids: [1, 2],
      window: { interval: Interval.INTERVAL_BLOCK, blockStart: "400", blockEnd: "451" },
      format: 0,
      order: 0,
      page: { limit: 2, cursor: "" },
    });
    expect(blocks.points.map((point) => [point.blockNumber, point.netuid, point.volumeRao])).toEqual([
      ["400", 1, "4000"],
      ["450", 1, "500"],
    ]);
    const rest = await call(market, "getSubnetPoolsHistory", {
      netuids: [1, 2],
      window: { interval: Interval.INTERVAL_BLOCK, blockStart: "400", blockEnd: "451" },
      format: 0,
      order: 0,
      page: { limit: 2, cursor: blocks.page!.nextCursor! },
    });
    expect(rest.points.map((point) => [point.blockNumber, point.netuid])).toEqual([["450", 2]]);
    expect(
      await grpcCode(
        call(market, "getSubnetPoolsHistory", {
          netuids: [1],
          window: { interval: Interval.INTERVAL_BLOCK, blockStart: "0", blockEnd: "8000" },
          format: 0,
          order: 0,
        }),
      ),
    ).toBe("WINDOW_TOO_LARGE");
    expect(await grpcCode(call(market, "getSubnetPoolsHistory", { netuids: [], format: 0, order: 0 }))).toBe(
      "INVALID_PARAMETER",
    );
    expect(await grpcCode(call(market, "getSubnetPoolsHistory", { netuids: [7], format: 0, order: 0 }))).toBe(
      "NETUID_NOT_FOUND",
    );
  });
});

describe("MarketService: subnet emissions", () => {
  it("GetSubnetEmissionsLatest splits the alpha emission", async () => {
    const emissions = await call(market, "getSubnetEmissionsLatest", { netuids: [], sort: 0, order: 0 });
    expect(emissions).toMatchObject({
      blockEmissionRao: "1000000000",
      totalTaoEmissionRao: "500000000",
      subnetsEmitting: 1,
      ownerCut: "0.18",
    });
    expect(emissions.emissions[0]).toMatchObject({
      netuid: 1,
      name: "sn1",
      taoEmissionShare: "0.5",
      blocksSinceLastEpoch: "90",
      alphaOutSplit: {
        ownerNalpha: "180000000",
        minersNalpha: "410000000",
        validatorsNalpha: "205000000",
        rootNalpha: "205000000",
      },
      perDayEstimate: { taoInRao: "2880000000000", alphaOutNalpha: "7200000000000" },
    });
  });
});

describe("SubnetsService", () => {
  it("GetSubnetsLatest answers subnets with their pool summary at one block", async () => {
    const answer = await call(subnets, "getSubnetsLatest", { netuids: [], sort: 0, order: 0 });
    expect(answer.asOf?.blockNumber).toBe("450");
    expect(answer.subnets.map((subnet) => [subnet.netuid, subnet.pool?.priceTao, subnet.validatorsWithPermit])).toEqual(
      [
        [1, "0.25", 2],
        [2, "0.5", 0],
      ],
    );
    expect(answer.subnets[0]).toMatchObject({ lastEpochBlock: "360", nextEpochBlock: "720", activeUids: 3 });
    expect(await grpcCode(call(subnets, "getSubnetsLatest", { netuids: [42], sort: 0, order: 0 }))).toBe(
      "NETUID_NOT_FOUND",
    );
  });

  it("GetValidatorsLatest ranks permitted validators by stake value and pages them", async () => {
    const first = await call(subnets, "getValidatorsLatest", {
      netuid: 1,
      includeWithoutPermit: false,
      sort: 0,
      order: 0,
      page: { limit: 1, cursor: "" },
    });
    expect(
      first.validators.map((validator) => [validator.uid, validator.totalStakeValueRao, validator.blocksSinceUpdate]),
    ).toEqual([[1, "1100", "10"]]);
    const rest = await call(subnets, "getValidatorsLatest", {
      netuid: 1,
      includeWithoutPermit: false,
      sort: 0,
      order: 0,
      page: { limit: 1, cursor: first.page!.nextCursor! },
    });
    expect(rest.validators.map((validator) => validator.uid)).toEqual([0]);
    expect(rest.page?.hasMore).toBe(false);
    const all = await call(subnets, "getValidatorsLatest", {
      netuid: 1,
      includeWithoutPermit: true,
      sort: ValidatorSort.VALIDATOR_SORT_UID,
      order: 1,
    });
    expect(all.validators.map((validator) => validator.uid)).toEqual([0, 1, 2]);
    expect(
      await grpcCode(
        call(subnets, "getValidatorsLatest", { netuid: 9, includeWithoutPermit: false, sort: 0, order: 0 }),
      ),
    ).toBe("NETUID_NOT_FOUND");
  });

  it("GetHoldersTop ranks coldkeys and positions with a position cursor", async () => {
    const first = await call(subnets, "getHoldersTop", { netuid: 1, groupBy: 0, page: { limit: 2, cursor: "" } });
    expect(first).toMatchObject({
      holdersCount: 3,
      alphaOutNalpha: "1000000000000",
      priceTao: "0.25",
      coverage: HolderCoverage.HOLDER_COVERAGE_COMPLETE,
    });
    expect(
      first.holders.map((holder) => [
        holder.rank,
        holder.coldkey?.ss58,
        holder.alphaNalpha,
        holder.positionsCount,
        holder.identityName,
      ]),
    ).toEqual([
      [1, "ss58-1", "700", 2, "v1"],
      [2, "ss58-2", "500", 1, "v2"],
    ]);
    expect(first.holders[0]).toMatchObject({ valueRao: "175", shareOfAlphaOut: "0.0000000007" });
    const rest = await call(subnets, "getHoldersTop", {
      netuid: 1,
      groupBy: 0,
      page: { limit: 2, cursor: first.page!.nextCursor! },
    });
    expect(rest.holders.map((holder) => [holder.rank, holder.coldkey?.ss58])).toEqual([[3, "ss58-3"]]);
    const positions = await call(subnets, "getHoldersTop", {
      netuid: 1,
      groupBy: HolderGrouping.HOLDER_GROUPING_POSITION,
      minAlphaNalpha: "300",
    });
    expect(positions.holders.map((holder) => [holder.coldkey?.ss58, holder.hotkey?.ss58, holder.alphaNalpha])).toEqual([
      ["ss58-2", "ss58-a", "500"],
      ["ss58-1", "ss58-b", "400"],
      ["ss58-1", "ss58-a", "300"],
    ]);
    expect(
      await grpcCode(call(subnets, "getHoldersTop", { netuid: 1, groupBy: 0, page: { limit: 2, cursor: "xyz" } })),
    ).toBe("INVALID_CURSOR");
    expect(await grpcCode(call(subnets, "getHoldersTop", { netuid: 5, groupBy: 0 }))).toBe("NETUID_NOT_FOUND");
  });
});

describe("while a read model is rebuilt (its projector marker not complete)", () => {
  it("answers 503 REBUILDING with a retry delay instead of an older as_of, and serves again once the marker says complete", async () => {
    const guarded = await startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      services: [
        guardedByMarkers(marketGrpcService({ redis, log }), redis, [
          PROJECTION_MARKERS.market,
          PROJECTION_MARKERS.subnets,
        ]),
      ],
    });
    guarded.setServing(true);
    const client = createGrpcClient(MarketServiceClient, { target: `127.0.0.1:${guarded.port}`, deadlineMs: 10_000 });
    const outcome = () =>
      call(client, "getNetworkStatsLatest", {}).then(
        (answer) => answer.asOf?.blockNumber,
        (error: unknown) => error as AppError,
      );
    try {
      await redis.del(PROJECTION_MARKERS.market, PROJECTION_MARKERS.subnets);
      for (const [market, subnets] of [
        [undefined, undefined],
        ["rebuilding:1f2e", "complete"],
        ["complete", "rebuilding:9a"],
      ] as const) {
        if (market) await redis.set(PROJECTION_MARKERS.market, market);
        if (subnets) await redis.set(PROJECTION_MARKERS.subnets, subnets);
        const refused = await outcome();
        expect(refused).toBeInstanceOf(AppError);
        expect([
          (refused as AppError).code,
          (refused as AppError).httpStatus,
          (refused as AppError).extras["retryAfterSeconds"],
        ]).toEqual(["REBUILDING", 503, 2]);
      }
      await redis.set(PROJECTION_MARKERS.subnets, "complete");
      expect(await outcome()).toBe("450");
    } finally {
      client.close();
      await guarded.shutdown(1_000);
    }
  });

  it("answers 503 READ_MODEL_UNAVAILABLE before the caller's deadline when Redis does not answer, not the caller's DEADLINE_EXCEEDED", async () => {
    const guarded = await startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      services: [guardedByMarkers(marketGrpcService({ redis, log }), redis, [PROJECTION_MARKERS.market])],
    });
    guarded.setServing(true);
    const client = createGrpcClient(MarketServiceClient, { target: `127.0.0.1:${guarded.port}`, deadlineMs: 1_000 });
    try {
      // The real server holds every client's commands (what a dead primary does to the reads
      // ioredis queues while the Cluster relearns its slots), longer than the caller waits.
      await redis.call("CLIENT", "PAUSE", "3000", "ALL");
      const startedAt = Date.now();
      const refused = (await call(client, "getNetworkStatsLatest", {}).catch((error: unknown) => error)) as AppError;
      const tookMs = Date.now() - startedAt;
      expect(refused).toBeInstanceOf(AppError);
      expect([refused.code, refused.httpStatus]).toEqual(["READ_MODEL_UNAVAILABLE", 503]);
      expect(tookMs).toBeLessThan(1_000);
      // Once Redis answers again, so does the route.
      await redis.ping();
      expect(await call(client, "getNetworkStatsLatest", {}).then((answer) => answer.asOf?.blockNumber)).toBe("450");
    } finally {
      client.close();
      await guarded.shutdown(1_000);
    }
  });
});

describe("a lost Redis", () => {
  it("answers UNAVAILABLE (the gateway's 503), never INTERNAL, and the service serves again once Redis is back", async () => {
    const port = redisServer.port;
    await redisServer.stop();
    await waitFor(async () => redis.status !== "ready", { what: "the connection lost" });
    const calls = [
      () => call(market, "getPriceLatest", { vs: "usd" }),
      () => call(subnets, "getHoldersTop", { netuid: 1, groupBy: 0, page: { limit: 2, cursor: "" } }),
      () => call(market, "getNetworkStatsLatest", {}),
    ];
    for (const pending of calls) {
      const error = await pending().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(AppError);
      expect([(error as AppError).grpcStatus, (error as AppError).httpStatus]).toEqual([14, 503]);
      expect((error as AppError).code).toMatch(/UNAVAILABLE$/);
    }
    redisServer = await startRedis({
      port,
      dir: join(dir.path, "redis-again"),
      logFile: join(dir.path, "redis-again.log"),
    });
    await waitFor(async () => redis.status === "ready", { what: "the connection back", timeoutMs: 10_000 });
    // An empty Redis: the read models are gone, which is an answer, not an outage.
    expect(await grpcCode(call(market, "getPriceLatest", { vs: "usd" }))).not.toBe("UNAVAILABLE");
  }, 30_000);
});
