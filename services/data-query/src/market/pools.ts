import type { HistoryDb } from "@platform/history";
import { PoolMechanism } from "@platform/proto/common/v1/network";
import type {
  GetSubnetPoolsLatestRequest,
  GetSubnetPoolsLatestResponse,
  SubnetPool,
} from "@platform/proto/data/v1/market";
import { PoolSnapshot, SubnetSnapshot } from "@platform/proto/events/v1/chain_network";
import { PriceObserved } from "@platform/proto/events/v1/oracle_prices";
import { POOL_SORTS, type SortName } from "@platform/proto/sorts";
import { marketKeys, subnetsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { DAY_MS, dayBuckets, flowsOverDay, HOUR_MS, priceChanges, volumesOverDay } from "../shared/changes.js";
import { queryScope } from "../shared/cursor.js";
import { mulIntByDecimal } from "../shared/decimal.js";
import { MARKET_POOLS } from "../shared/netuidsAt.js";
import { multiply, ratio } from "../shared/numbers.js";
import { orderOf, pageLimitOf } from "../shared/page.js";
import { blockScope, wantedOf } from "../shared/pastBlock.js";
import { decodePoint, newestPoints, pointsAtBlock } from "../shared/readModel.js";
import { type ReadAt, snapshotsAtHead, snapshotsAtPast } from "../shared/snapshotsAt.js";
import { sortedPage, sortReaderOf } from "../shared/sortedPage.js";
import { poolTradersAt } from "./poolTraders.js";
import { type PoolVolume, poolVolumeOf } from "./poolVolume.js";

const PAGE = { defaultLimit: 256, maxLimit: 256 };

/**
 * `GET /data/v1/subnet-pools/latest`: every pool at the newest block all of them reached, or at the
 * block asked for (the pools that stood then).
 */
export async function getSubnetPoolsLatest(
  redis: Redis,
  request: GetSubnetPoolsLatestRequest,
  history?: HistoryDb,
): Promise<GetSubnetPoolsLatestResponse> {
  const limit = pageLimitOf(request.page, PAGE);
  const order = orderOf(request.order, POOL_SORTS.defaultOrder);
  const sortValueOf = sortReaderOf(POOL_SORTS, POOL_SORT_VALUES, request.sort, "a pool sort");
  const wanted = wantedOf(request.at);
  // The root subnet's pool only when asked for, by name or by include_root.
  const choice = { requested: request.netuids, include: (netuid: number) => request.includeRoot || netuid !== 0 };
  const { netuids, snapshots, points, asOf, read } =
    wanted === undefined
      ? await snapshotsAtHead(redis, MARKET_POOLS, PoolSnapshot, choice, "pool")
      : await snapshotsAtPast({ redis, history }, MARKET_POOLS, PoolSnapshot, { ...choice, wanted }, "pool");
  const volumes = snapshots.map((snapshot, index) => poolVolumeOf(snapshot, points[index]));
  const pools = await describePools(
    redis,
    snapshots,
    Number(asOf.blockNumber),
    Date.parse(asOf.timestamp),
    read,
    volumes,
  );
  const scope = queryScope([
    "subnet-pools/latest",
    [...netuids].sort((a, b) => a - b),
    request.includeRoot,
    request.sort,
    order,
    ...blockScope(request.at),
  ]);
  const page = sortedPage({
    items: pools,
    valueOf: sortValueOf,
    idOf: (pool) => pool.netuid,
    order,
    limit,
    cursor: request.page?.cursor ?? "",
    scope,
  });
  return { asOf, pools: page.items, page: page.page };
}

/** What each pool sort orders by. */
const POOL_SORT_VALUES: Record<SortName<typeof POOL_SORTS>, (pool: SubnetPool) => string | undefined> = {
  market_cap: (pool) => pool.marketCapRao,
  netuid: (pool) => String(pool.netuid),
  price: (pool) => pool.priceTao,
  tao_in: (pool) => pool.taoInRao,
  alpha_in: (pool) => pool.alphaInNalpha,
  alpha_out: (pool) => pool.alphaOutNalpha,
  volume_24h: (pool) => pool.volume24hRao,
  price_change_24h: (pool) => pool.priceChange24hPct,
};

/**
 * The API view of pool snapshots taken at `block` (time `nowMs`): derived values, changes, names,
 * USD. `volumes` (poolVolume.ts, by snapshot) default to the snapshots' own `SubnetVolume`.
 */
export async function describePools(
  redis: Redis,
  snapshots: readonly PoolSnapshot[],
  block: number,
  nowMs: number,
  read: ReadAt = (keys, at) => pointsAtBlock(redis, keys, at),
  volumes: readonly PoolVolume[] = snapshots.map((snapshot) => poolVolumeOf(snapshot, undefined)),
): Promise<SubnetPool[]> {
  const bucketKeys = snapshots.map((snapshot) => marketKeys.poolBuckets(snapshot.netuid, "5m"));
  const [changes, day, traders, subnets, usd] = await Promise.all([
    priceChanges(
      redis,
      bucketKeys,
      nowMs,
      [HOUR_MS, DAY_MS, 7 * DAY_MS],
      snapshots.map((snapshot) => snapshot.priceTao),
    ),
    dayBuckets(redis, bucketKeys, nowMs),
    poolTradersAt(redis, snapshots),
    read(
      snapshots.map((snapshot) => subnetsKeys.subnetPoints(snapshot.netuid)),
      block,
    ),
    newestPoints(redis, [marketKeys.pricePoints("TAO", "usd")]),
  ]);
  const dayVolumes = volumesOverDay(
    day,
    volumes.map((volume) => volume.counterRao),
  );
  const dayFlows = flowsOverDay(
    day,
    volumes.map((volume) => volume.flow),
  );
  const taoUsd = usd[0] === undefined ? undefined : decodePoint(usd[0], PriceObserved).price;
  return snapshots.map((snapshot, index) => {
    const subnet = subnets[index] === undefined ? undefined : decodePoint(subnets[index]!, SubnetSnapshot);
    const marketCap = mulIntByDecimal(BigInt(snapshot.alphaIssuanceNalpha), snapshot.priceTao).toString();
    const [change1h, change24h, change7d] = changes[index]!;
    const pool: SubnetPool = {
      netuid: snapshot.netuid,
      mechanism:
        snapshot.mechanism === PoolMechanism.POOL_MECHANISM_UNSPECIFIED
          ? PoolMechanism.POOL_MECHANISM_DYNAMIC
          : snapshot.mechanism,
      taoInRao: snapshot.taoInRao,
      alphaInNalpha: snapshot.alphaInNalpha,
      alphaOutNalpha: snapshot.alphaOutNalpha,
      alphaIssuanceNalpha: snapshot.alphaIssuanceNalpha,
      priceTao: snapshot.priceTao,
      reserveRatioTao: ratio(snapshot.taoInRao, snapshot.alphaInNalpha),
      movingPriceTao: snapshot.movingPriceTao,
      marketCapRao: marketCap,
      liquidityRao: (2n * BigInt(snapshot.taoInRao)).toString(),
      volumeTotalRao: volumes[index]!.totalRao,
      blockNumber: snapshot.ref?.blockNumber ?? String(block),
      timestamp: snapshot.ref?.blockTimestamp ?? "",
    };
    if (subnet?.name !== undefined) pool.name = subnet.name;
    if (subnet?.symbol !== undefined) pool.symbol = subnet.symbol;
    if (snapshot.protocolAlphaNalpha !== undefined) pool.protocolAlphaNalpha = snapshot.protocolAlphaNalpha;
    if (snapshot.balancerQuoteWeight !== undefined) pool.balancerQuoteWeight = snapshot.balancerQuoteWeight;
    if (snapshot.rootProp !== undefined) pool.rootProp = snapshot.rootProp;
    if (volumes[index]!.sinceBlock !== undefined) pool.volumeSinceBlock = volumes[index]!.sinceBlock;
    if (dayVolumes[index] !== undefined) pool.volume24hRao = dayVolumes[index];
    const flow = dayFlows[index];
    if (flow !== undefined) {
      pool.taoBuyVolume24hRao = flow.b;
      pool.taoSellVolume24hRao = flow.s;
      pool.buys24h = flow.bn;
      pool.sells24h = flow.sn;
    }
    if (traders[index] !== undefined) {
      pool.buyers24h = String(traders[index].buyers);
      pool.sellers24h = String(traders[index].sellers);
    }
    if (change1h !== undefined) pool.priceChange1hPct = change1h;
    if (change24h !== undefined) pool.priceChange24hPct = change24h;
    if (change7d !== undefined) pool.priceChange7dPct = change7d;
    if (taoUsd !== undefined) {
      pool.priceUsd = multiply(snapshot.priceTao, taoUsd);
      pool.marketCapUsd = multiply(multiply(marketCap, "0.000000001"), taoUsd);
    }
    return pool;
  });
}
