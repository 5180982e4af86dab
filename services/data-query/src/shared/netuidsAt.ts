import { marketKeys, type SeriesPoint, subnetsKeys } from "@platform/read-models";
import { readModel } from "./asOf.js";
import { checkNetuids, toNetuids } from "./netuids.js";
import { type SeriesStores, seriesAt } from "./seriesAt.js";

/** A projection's subnet list: the set of netuids standing now, its removals, and the series that says a subnet stood. */
export interface SubnetList {
  /** Set of the netuids standing now. */
  setKey: string;
  /** Hash netuid -> `<block>:<hash>` of its last removal. */
  removalsKey: string;
  /** The series whose point at a block says the subnet stood then. */
  pointsKey: (netuid: number) => string;
}

/**
 * The subnets that stood at `block`, with their points of `list.pointsKey` then: among those
 * standing now and those removed since, the ones with a point at or below the block that their last
 * removal (if at or below the block) did not come after. `requested` (when not empty) is checked
 * against them: NETUID_NOT_FOUND for a subnet that did not stand at that block.
 */
export async function subnetsAt(
  stores: SeriesStores,
  list: SubnetList,
  block: number,
  requested: readonly number[],
  max: number,
): Promise<{ netuids: number[]; points: SeriesPoint[] }> {
  const [members, removals] = await Promise.all([
    readModel(() => stores.redis.smembers(list.setKey)),
    readModel(() => stores.redis.hgetall(list.removalsKey)),
  ]);
  const listed = [...new Set([...toNetuids(members), ...toNetuids(Object.keys(removals))])];
  // Only the requested ones need reading (an unknown one is refused below all the same).
  const candidates = requested.length > 0 ? listed.filter((netuid) => requested.includes(netuid)) : listed;
  const points = await seriesAt(stores, candidates.map(list.pointsKey), block);
  const standing = new Map<number, SeriesPoint>();
  candidates.forEach((netuid, index) => {
    const point = points[index];
    const removedAt = Number((removals[String(netuid)] ?? "").split(":")[0] || Number.NaN);
    const removedBefore =
      Number.isFinite(removedAt) && removedAt <= block && point !== undefined && point.b <= removedAt;
    if (point !== undefined && !removedBefore) standing.set(netuid, point);
  });
  const netuids = requested.length > 0 ? checkNetuids(requested, new Set(standing.keys()), max) : [...standing.keys()];
  return { netuids, points: netuids.map((netuid) => standing.get(netuid)!) };
}

/** The market projection's pools. */
export const MARKET_POOLS: SubnetList = {
  setKey: marketKeys.pools,
  removalsKey: marketKeys.removedSubnets,
  pointsKey: marketKeys.poolPoints,
};
/** The market projection's emissions. */
export const MARKET_EMISSIONS: SubnetList = {
  setKey: marketKeys.emissions,
  removalsKey: marketKeys.removedSubnets,
  pointsKey: marketKeys.emissionPoints,
};
/** The subnets projection's subnets, by their settings. */
export const SUBNET_SETTINGS: SubnetList = {
  setKey: subnetsKeys.netuids,
  removalsKey: subnetsKeys.removedSubnets,
  pointsKey: subnetsKeys.subnetPoints,
};
/** The subnets projection's subnets, by their pools (published at every block). */
export const SUBNET_POOLS: SubnetList = { ...SUBNET_SETTINGS, pointsKey: subnetsKeys.poolPoints };
