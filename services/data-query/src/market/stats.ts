import type { HistoryDb } from "@platform/history";
import type {
  BurnRange,
  GetNetworkStatsLatestRequest,
  GetNetworkStatsLatestResponse,
} from "@platform/proto/data/v1/market";
import { NetworkStatsSnapshot, PoolSnapshot, SubnetSnapshot } from "@platform/proto/events/v1/chain_network";
import { marketKeys, type RunningCounts, subnetsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readModel } from "../shared/asOf.js";
import { notYet } from "../shared/asOfRef.js";
import { volumes24h } from "../shared/changes.js";
import { toNetuids } from "../shared/netuids.js";
import { MARKET_POOLS, SUBNET_SETTINGS, subnetsAt } from "../shared/netuidsAt.js";
import { asOfPinned, pinBlock, wantedOf } from "../shared/pastBlock.js";
import { decodePoint, newestPoints, pointsAtBlock } from "../shared/readModel.js";
import type { SeriesStores } from "../shared/seriesAt.js";

const MAX_SUPPLY_RAO = "21000000000000000";
const BLOCKS_PER_DAY = 7_200;

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
    poolPoints.map((pool) => (pool === undefined ? undefined : decodePoint(pool, PoolSnapshot).volumeTotalRao)),
  );
  const known = volumes.filter((volume): volume is string => volume !== undefined);
  const swapVolume = known.length === 0 ? undefined : known.reduce((sum, volume) => sum + BigInt(volume), 0n);
  const burns = subnetPoints
    .filter((subnet) => subnet !== undefined)
    .map((subnet) => decodePoint(subnet!, SubnetSnapshot).registration?.burnRao)
    .filter((burn): burn is string => burn !== undefined && burn !== "")
    .map(BigInt)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  const response: GetNetworkStatsLatestResponse = {
    asOf,
    totalIssuanceRao: stats.totalIssuanceRao,
    maxSupplyRao: MAX_SUPPLY_RAO,
    totalStakeRao: stats.totalStakeRao,
    stakedRootRao: stats.stakedRootRao,
    stakedAlphaPoolsRao: stats.stakedAlphaPoolsRao,
    blockEmissionRao: stats.blockEmissionRao,
    blocksPerDay: BLOCKS_PER_DAY,
    taoWeight: stats.taoWeight,
    rootNetuid: stats.rootNetuid,
    subnetsCount: stats.subnetsCount,
    subnetLimit: stats.subnetLimit,
    volume: swapVolume === undefined ? {} : { swapVolume24hRao: swapVolume.toString() },
    registration: {},
  };
  if (stats.balancesTotalIssuanceRao !== undefined) response.balancesTotalIssuanceRao = stats.balancesTotalIssuanceRao;
  if (stats.subnetLockedRao !== undefined) {
    response.subnetLockedRao = stats.subnetLockedRao;
    // Derived: issuance less stake and locks. A chain whose issuance does not cover them (a devnet
    // genesis that never set `TotalIssuance`) has no meaningful figure: left out, never negative.
    const free =
      stats.totalIssuanceRao === ""
        ? -1n
        : BigInt(stats.totalIssuanceRao) - BigInt(stats.totalStakeRao) - BigInt(stats.subnetLockedRao);
    if (free >= 0n) response.freeRao = free.toString();
  }
  if (stats.accountsCount !== undefined) response.accountsCount = stats.accountsCount;
  if (stats.balanceHoldersCount !== undefined) response.balanceHoldersCount = stats.balanceHoldersCount;
  Object.assign(response, chainCounts(stats, point.n));
  const registration = response.registration!;
  if (stats.subnetRegistrationCostRao !== undefined)
    registration.subnetRegistrationCostRao = stats.subnetRegistrationCostRao;
  if (stats.subnetMinLockRao !== undefined) registration.subnetMinLockRao = stats.subnetMinLockRao;
  if (stats.subnetLastLockRao !== undefined) registration.subnetLastLockRao = stats.subnetLastLockRao;
  if (stats.subnetLastRegistrationBlock !== undefined)
    registration.subnetLastRegistrationBlock = stats.subnetLastRegistrationBlock;
  if (stats.lockReductionIntervalBlocks !== undefined)
    registration.lockReductionIntervalBlocks = stats.lockReductionIntervalBlocks;
  if (burns.length > 0) registration.neuronBurn = burnRange(burns);
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

/**
 * Extrinsics and transfers with the block they are counted from: the source's own totals (over the
 * chain's history) when it gives them, else the projection's running counts through the point's
 * block (runningCounts.ts in the projector), else none. Never a count without its first block.
 */
export function chainCounts(
  stats: Pick<NetworkStatsSnapshot, "extrinsicsCount" | "transfersCount">,
  running: RunningCounts | undefined,
): Pick<GetNetworkStatsLatestResponse, "extrinsicsCount" | "transfersCount" | "countedSinceBlock"> {
  if (stats.extrinsicsCount !== undefined && stats.transfersCount !== undefined)
    return { extrinsicsCount: stats.extrinsicsCount, transfersCount: stats.transfersCount, countedSinceBlock: "0" };
  if (running === undefined) return {};
  return {
    extrinsicsCount: String(running.x),
    transfersCount: String(running.r),
    countedSinceBlock: String(running.s),
  };
}

/** Min, median (lower middle for an even count) and max. */
function burnRange(sorted: readonly bigint[]): BurnRange {
  return {
    minRao: sorted[0]!.toString(),
    medianRao: sorted[Math.floor((sorted.length - 1) / 2)]!.toString(),
    maxRao: sorted.at(-1)!.toString(),
  };
}
