import type { GetNetworkStatsLatestResponse } from "@platform/proto/data/v1/market";
import { NetworkStatsSnapshot } from "@platform/proto/events/v1/chain_network";
import type { RunningCounts, SeriesPoint } from "@platform/read-models";
import { asOfOf } from "../shared/asOfRef.js";
import { decodePoint } from "../shared/readModel.js";

const MAX_SUPPLY_RAO = "21000000000000000";
const BLOCKS_PER_DAY = 7_200;

/**
 * The network totals one stats point holds, as the latest route shows them, less what that route
 * derives from other series at the same block (24 h pool volume, the neuron burn range): those are
 * left unset; the latest route (stats.ts) adds them. as_of names the point's block. `stats` is the
 * point decoded, when the caller has it.
 */
export function networkStatsFigures(
  point: SeriesPoint,
  stats: NetworkStatsSnapshot = decodePoint(point, NetworkStatsSnapshot),
): GetNetworkStatsLatestResponse {
  const figures: GetNetworkStatsLatestResponse = {
    asOf: asOfOf(stats.ref),
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
    ...optionals(stats, ["balancesTotalIssuanceRao", "subnetLockedRao", "accountsCount", "balanceHoldersCount"]),
    ...chainCounts(stats, point.n),
    volume: {},
    registration: optionals(stats, [
      "subnetRegistrationCostRao",
      "subnetMinLockRao",
      "subnetLastLockRao",
      "subnetLastRegistrationBlock",
      "lockReductionIntervalBlocks",
    ]),
  };
  // Derived: issuance less stake and locks. A chain whose issuance does not cover them (a devnet
  // genesis that never set `TotalIssuance`) has no meaningful figure: left out, never negative.
  if (stats.subnetLockedRao !== undefined && stats.totalIssuanceRao !== "") {
    const free = BigInt(stats.totalIssuanceRao) - BigInt(stats.totalStakeRao) - BigInt(stats.subnetLockedRao);
    if (free >= 0n) figures.freeRao = free.toString();
  }
  return figures;
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

/** The named optional members the snapshot has (an absent one stays absent, never undefined-valued). */
function optionals<K extends keyof NetworkStatsSnapshot>(stats: NetworkStatsSnapshot, names: readonly K[]) {
  const present: Partial<Pick<NetworkStatsSnapshot, K>> = {};
  for (const name of names) if (stats[name] !== undefined) present[name] = stats[name];
  return present;
}
