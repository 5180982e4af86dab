import type { GetNetworkStatsLatestResponse } from "@platform/proto/data/v1/market";
import { NetworkStatsSnapshot } from "@platform/proto/events/v1/chain_network";
import type { SeriesPoint } from "@platform/read-models";
import { asOfOf } from "../shared/asOfRef.js";
import { decodePoint } from "../shared/readModel.js";
import { chainCounts } from "./stats.js";

const MAX_SUPPLY_RAO = "21000000000000000";
const BLOCKS_PER_DAY = 7_200;

/**
 * The network totals one stats point holds, as the latest route shows them, less what that route
 * derives from other series at the same block (24 h pool volume, the neuron burn range): those are
 * left unset. as_of names the point's block.
 */
export function networkStatsFigures(point: SeriesPoint): GetNetworkStatsLatestResponse {
  const stats = decodePoint(point, NetworkStatsSnapshot);
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
  // Derived as the latest route does: issuance less stake and locks, never negative.
  if (stats.subnetLockedRao !== undefined && stats.totalIssuanceRao !== "") {
    const free = BigInt(stats.totalIssuanceRao) - BigInt(stats.totalStakeRao) - BigInt(stats.subnetLockedRao);
    if (free >= 0n) figures.freeRao = free.toString();
  }
  return figures;
}

/** The named optional members the snapshot has (an absent one stays absent, never undefined-valued). */
function optionals<K extends keyof NetworkStatsSnapshot>(stats: NetworkStatsSnapshot, names: readonly K[]) {
  const present: Partial<Pick<NetworkStatsSnapshot, K>> = {};
  for (const name of names) if (stats[name] !== undefined) present[name] = stats[name];
  return present;
}
