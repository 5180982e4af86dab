import { invalidArgument } from "@platform/errors";
import { PoolMechanism } from "@platform/proto/common/v1/network";
import {
  type GetSubnetPoolsLatestRequest,
  type GetSubnetPoolsLatestResponse,
  PoolSort,
  type SubnetPool,
} from "@platform/proto/data/v1/market";
import { PoolSnapshot, SubnetSnapshot } from "@platform/proto/events/v1/chain_network";
import { PriceObserved } from "@platform/proto/events/v1/oracle_prices";
import { marketKeys, subnetsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readModel } from "../shared/asOf.js";
import { asOfOf, notYet } from "../shared/asOfRef.js";
import { DAY_MS, HOUR_MS, priceChanges, volumes24h } from "../shared/changes.js";
import { queryScope } from "../shared/cursor.js";
import { mulIntByDecimal } from "../shared/decimal.js";
import { checkNetuids, toNetuids } from "../shared/netuids.js";
import { multiply, ratio } from "../shared/numbers.js";
import { orderOf, pageLimitOf } from "../shared/page.js";
import { consistentPoints, decodePoint, newestPoints, pointsAtBlock } from "../shared/readModel.js";
import { sortedPage } from "../shared/sortedPage.js";

const PAGE = { defaultLimit: 256, maxLimit: 256 };

/** `GET /data/v1/subnet-pools/latest`: every pool at the newest block all of them reached. */
export async function getSubnetPoolsLatest(
  redis: Redis,
  request: GetSubnetPoolsLatestRequest,
): Promise<GetSubnetPoolsLatestResponse> {
  const limit = pageLimitOf(request.page, PAGE);
  const order = orderOf(request.order, "desc");
  const sortValueOf = poolSortValue(request.sort);
  const known = toNetuids(await readModel(() => redis.smembers(marketKeys.pools)));
  const netuids =
    request.netuids.length > 0
      ? checkNetuids(request.netuids, known, 256)
      : [...known].filter((netuid) => request.includeRoot || netuid !== 0);
  const { block, points } = await consistentPoints(redis, netuids.map(marketKeys.poolPoints));
  if (block === undefined) throw notYet("pool");
  const snapshots = points.map((point) => (point === undefined ? undefined : decodePoint(point, PoolSnapshot)));
  const standing = snapshots.filter((snapshot): snapshot is PoolSnapshot => snapshot !== undefined);
  const asOf = asOfOf(standing.find((snapshot) => Number(snapshot.ref?.blockNumber) === block)?.ref);
  const pools = await describePools(redis, standing, block, Date.parse(asOf.timestamp));
  const scope = queryScope([
    "subnet-pools/latest",
    [...netuids].sort((a, b) => a - b),
    request.includeRoot,
    request.sort,
    order,
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

function poolSortValue(sort: PoolSort): (pool: SubnetPool) => string | undefined {
  switch (sort) {
    case PoolSort.POOL_SORT_UNSPECIFIED:
    case PoolSort.POOL_SORT_MARKET_CAP:
      return (pool) => pool.marketCapRao;
    case PoolSort.POOL_SORT_NETUID:
      return (pool) => String(pool.netuid);
    case PoolSort.POOL_SORT_PRICE:
      return (pool) => pool.priceTao;
    case PoolSort.POOL_SORT_TAO_IN:
      return (pool) => pool.taoInRao;
    case PoolSort.POOL_SORT_ALPHA_IN:
      return (pool) => pool.alphaInNalpha;
    case PoolSort.POOL_SORT_ALPHA_OUT:
      return (pool) => pool.alphaOutNalpha;
    case PoolSort.POOL_SORT_VOLUME_24H:
      return (pool) => pool.volume24hRao;
    case PoolSort.POOL_SORT_PRICE_CHANGE_24H:
      return (pool) => pool.priceChange24hPct;
    default:
      throw invalidArgument("INVALID_PARAMETER", "sort is not a pool sort", { parameter: "sort" });
  }
}

/** The API view of pool snapshots taken at `block` (time `nowMs`): derived values, changes, names, USD. */
export async function describePools(
  redis: Redis,
  snapshots: readonly PoolSnapshot[],
  block: number,
  nowMs: number,
): Promise<SubnetPool[]> {
  const bucketKeys = snapshots.map((snapshot) => marketKeys.poolBuckets(snapshot.netuid, "5m"));
  const [changes, volumes, subnets, usd] = await Promise.all([
    priceChanges(
      redis,
      bucketKeys,
      nowMs,
      [HOUR_MS, DAY_MS, 7 * DAY_MS],
      snapshots.map((snapshot) => snapshot.priceTao),
    ),
    volumes24h(
      redis,
      bucketKeys,
      nowMs,
      snapshots.map((snapshot) => snapshot.volumeTotalRao),
    ),
    pointsAtBlock(
      redis,
      snapshots.map((snapshot) => subnetsKeys.subnetPoints(snapshot.netuid)),
      block,
    ),
    newestPoints(redis, [marketKeys.pricePoints("TAO", "usd")]),
  ]);
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
      volumeTotalRao: snapshot.volumeTotalRao,
      blockNumber: snapshot.ref?.blockNumber ?? String(block),
      timestamp: snapshot.ref?.blockTimestamp ?? "",
    };
    if (subnet?.name !== undefined) pool.name = subnet.name;
    if (subnet?.symbol !== undefined) pool.symbol = subnet.symbol;
    if (snapshot.protocolAlphaNalpha !== undefined) pool.protocolAlphaNalpha = snapshot.protocolAlphaNalpha;
    if (snapshot.balancerQuoteWeight !== undefined) pool.balancerQuoteWeight = snapshot.balancerQuoteWeight;
    if (snapshot.rootProp !== undefined) pool.rootProp = snapshot.rootProp;
    if (volumes[index] !== undefined) pool.volume24hRao = volumes[index];
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
