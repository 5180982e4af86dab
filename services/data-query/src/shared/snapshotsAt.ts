import type { AsOf, ChainRef } from "@platform/proto/common/v1/common";
import { NetworkStatsSnapshot } from "@platform/proto/events/v1/chain_network";
import type { SeriesPoint } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readModel } from "./asOf.js";
import { asOfOf, notYet } from "./asOfRef.js";
import { checkNetuids, toNetuids } from "./netuids.js";
import { type SubnetList, subnetsAt } from "./netuidsAt.js";
import { asOfPinned, lowestBlock, pinBlock, type Wanted } from "./pastBlock.js";
import { consistentPoints, decodePoint, newestPoints, pointsAtBlock } from "./readModel.js";
import { type SeriesStores, seriesAt } from "./seriesAt.js";

/** Reads series states at a block: pointsAtBlock in Redis for the head, seriesAt across both stores for a past block. */
export type ReadAt = (keys: readonly string[], block: number) => Promise<(SeriesPoint | undefined)[]>;

/** Which subnets of a list a request asks for: the requested ones (checked), else every one `include` keeps. */
export interface SubnetChoice {
  requested: readonly number[];
  include?: (netuid: number) => boolean;
}

/** One snapshot per subnet chosen, the as_of they make, and how to read the answer's other series at that block. */
export interface SnapshotsAt<T> {
  netuids: number[];
  snapshots: T[];
  /** The series points the snapshots were decoded from, in the same order (what the fold kept with them). */
  points: SeriesPoint[];
  asOf: AsOf;
  read: ReadAt;
}

type Codec<T> = { decode(bytes: Uint8Array): T };

const MAX_NETUIDS = 256;

/**
 * The subnets' snapshots (a list's series: pools, emissions) at the newest block all of them
 * reached; `what` names the snapshot in the answer when none was projected yet.
 */
export async function snapshotsAtHead<T extends { ref?: ChainRef | undefined }>(
  redis: Redis,
  list: SubnetList,
  codec: Codec<T>,
  choice: SubnetChoice,
  what: string,
): Promise<SnapshotsAt<T>> {
  const known = toNetuids(await readModel(() => redis.smembers(list.setKey)));
  const netuids =
    choice.requested.length > 0
      ? checkNetuids(choice.requested, known, MAX_NETUIDS)
      : [...known].filter(choice.include ?? (() => true));
  const { block, points } = await consistentPoints(redis, netuids.map(list.pointsKey));
  if (block === undefined) throw notYet(what);
  const standing = points.filter((point): point is SeriesPoint => point !== undefined);
  const snapshots = standing.map((point) => decodePoint(point, codec));
  const asOf = asOfOf(snapshots.find((snapshot) => Number(snapshot.ref?.blockNumber) === block)?.ref);
  return { netuids, snapshots, points: standing, asOf, read: (keys, at) => pointsAtBlock(redis, keys, at) };
}

/**
 * The snapshots of the subnets that stood at the block asked for, below the newest block every
 * subnet listed now reached. as_of is the newest of them (the block itself, when the series is
 * published at every snapshot block), or the network's at that block when no subnet stood.
 */
export async function snapshotsAtPast<T extends { ref?: ChainRef | undefined }>(
  stores: SeriesStores,
  list: SubnetList,
  codec: Codec<T>,
  choice: SubnetChoice & { wanted: Wanted },
  what: string,
): Promise<SnapshotsAt<T>> {
  const known = toNetuids(await readModel(() => stores.redis.smembers(list.setKey)));
  const head = lowestBlock(await newestPoints(stores.redis, [...known].map(list.pointsKey)));
  if (head === undefined) throw notYet(what);
  const pin = await pinBlock(stores, choice.wanted, head);
  const standing = await subnetsAt(stores, list, pin.block, choice.requested, MAX_NETUIDS);
  const netuids =
    choice.requested.length > 0 ? standing.netuids : standing.netuids.filter(choice.include ?? (() => true));
  const points = netuids.map((netuid) => standing.points[standing.netuids.indexOf(netuid)]!);
  const snapshots = points.map((point) => decodePoint(point, codec));
  const newest = snapshots.reduce<T | undefined>(
    (top, snapshot) =>
      top === undefined || Number(snapshot.ref?.blockNumber) > Number(top.ref?.blockNumber) ? snapshot : top,
    undefined,
  );
  const asOf = asOfPinned(newest?.ref ?? decodePoint(pin.stats, NetworkStatsSnapshot).ref, pin);
  return { netuids, snapshots, points, asOf, read: (keys, at) => seriesAt(stores, keys, at) };
}
