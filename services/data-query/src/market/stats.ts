import type { HistoryDb } from "@platform/history";
import type {
  BurnRange,
  GetNetworkStatsLatestRequest,
  GetNetworkStatsLatestResponse,
} from "@platform/proto/data/v1/market";
import { NetworkStatsSnapshot, PoolSnapshot, SubnetSnapshot } from "@platform/proto/events/v1/chain_network";
import { marketKeys, subnetsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readModel } from "../shared/asOf.js";
import { notYet } from "../shared/asOfRef.js";
import { volumes24h } from "../shared/changes.js";
import { toNetuids } from "../shared/netuids.js";
import { MARKET_POOLS, SUBNET_SETTINGS, subnetsAt } from "../shared/netuidsAt.js";
import { asOfPinned, pinBlock, wantedOf } from "../shared/pastBlock.js";
import { decodePoint, newestPoints, pointsAtBlock } from "../shared/readModel.js";
import type { SeriesStores } from "../shared/seriesAt.js";
import { poolVolumeOf } from "./poolVolume.js";
import { networkStatsFigures } from "./statsFigures.js";

/**
 * `GET /data/v1/network/stats/latest`: the newest network totals (or those at the block asked for),
 * with pool volume and burns at that block.
 */
export async function getNetworkStatsLatest(
  redis: Redis,
  request: GetNetworkStatsLatestRequest = {},
  history?: HistoryDb,
): Promise<GetNetworkStatsLatestResponse> {
  const stores: SeriesStores = { redis, history };
  const wanted = wantedOf(request.at);
  const [newest] = await newestPoints(redis, [marketKeys.statsPoints]);
  if (newest === undefined) throw notYet("network stats");
  const pin = wanted === undefined ? undefined : await pinBlock(stores, wanted, newest.b);
  const point = pin?.stats ?? newest;
  const stats = decodePoint(point, NetworkStatsSnapshot);
  const asOf = asOfPinned(stats.ref, pin);
  const block = Number(asOf.blockNumber);
  const nowMs = Date.parse(asOf.timestamp);
  const { pools, poolPoints, subnetPoints } = await subnetPointsAt(stores, block, pin !== undefined);
  const volumes = await volumes24h(
    redis,
    pools.map((netuid) => marketKeys.poolBuckets(netuid, "5m")),
    nowMs,
    poolPoints.map((pool) =>
      pool === undefined ? undefined : poolVolumeOf(decodePoint(pool, PoolSnapshot), pool).counterRao,
    ),
  );
  const known = volumes.filter((volume): volume is string => volume !== undefined);
  const swapVolume = known.length === 0 ? undefined : known.reduce((sum, volume) => sum + BigInt(volume), 0n);
  const burns = subnetPoints
    .filter((subnet) => subnet !== undefined)
    .map((subnet) => decodePoint(subnet!, SubnetSnapshot).registration?.burnRao)
    .filter((burn): burn is string => burn !== undefined && burn !== "")
    .map(BigInt)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  // The figures the stats point holds, and what this route adds from other series at its block.
  const response = networkStatsFigures(point, stats);
  response.asOf = asOf;
  if (swapVolume !== undefined) response.volume = { swapVolume24hRao: swapVolume.toString() };
  if (burns.length > 0) response.registration = { ...response.registration, neuronBurn: burnRange(burns) };
  return response;
}

/**
 * The pools and subnet settings standing at `block`: at the newest block, those listed now; at a
 * past block, those that stood then (removed since included), wherever their points are kept.
 */
async function subnetPointsAt(stores: SeriesStores, block: number, past: boolean) {
  const { redis } = stores;
  if (past) {
    const [pools, subnets] = await Promise.all([
      subnetsAt(stores, MARKET_POOLS, block, [], Number.MAX_SAFE_INTEGER),
      subnetsAt(stores, SUBNET_SETTINGS, block, [], Number.MAX_SAFE_INTEGER),
    ]);
    return { pools: pools.netuids, poolPoints: pools.points, subnetPoints: subnets.points };
  }
  const [poolNetuids, subnetNetuids] = await Promise.all([
    readModel(() => redis.smembers(marketKeys.pools)),
    readModel(() => redis.smembers(subnetsKeys.netuids)),
  ]);
  const pools = [...toNetuids(poolNetuids)];
  const [poolPoints, subnetPoints] = await Promise.all([
    pointsAtBlock(redis, pools.map(marketKeys.poolPoints), block),
    pointsAtBlock(redis, [...toNetuids(subnetNetuids)].map(subnetsKeys.subnetPoints), block),
  ]);
  return { pools, poolPoints, subnetPoints };
}

/** Min, median (lower middle for an even count) and max. */
function burnRange(sorted: readonly bigint[]): BurnRange {
  return {
    minRao: sorted[0]!.toString(),
    medianRao: sorted[Math.floor((sorted.length - 1) / 2)]!.toString(),
    maxRao: sorted.at(-1)!.toString(),
  };
}
