import { HolderPositions } from "@platform/proto/events/v1/chain_network";
import { applyHolderSetDelta, holderSetDigest, sameDigest } from "@platform/proto/holderSets";
import type { SeriesPoint } from "./series.js";

/**
 * A subnet's holder series as the history database keeps it: keyframes (whole sets) and deltas
 * (points marked `d`: the positions that changed against the series' previous set, with that set's
 * digest as their base). Given such points in order, from anywhere, gives back the whole sets they
 * stand for, as Redis holds them:
 * - a keyframe as it is;
 * - a delta applied to the set before it, when that set's digest is the delta's base;
 * - any other delta skipped, as the projector skips it in Redis (projector subnets/holders.ts): the
 *   series stands still until its next keyframe. So are deltas before the first keyframe.
 *
 * Only the newest `keep` whole points are encoded again: a read at a block walks up to a keyframe
 * interval of deltas (7,200 blocks) to answer one set.
 */
export function wholeHolderPoints(points: readonly SeriesPoint[], keep = Number.POSITIVE_INFINITY): SeriesPoint[] {
  const stood: { point: SeriesPoint; set: HolderPositions | undefined }[] = [];
  for (const point of points) {
    if (point.d === undefined) {
      stood.push({ point, set: undefined });
      continue;
    }
    const previous = stood.at(-1);
    if (previous === undefined) continue;
    const base = previous.set ?? decodeSet(previous.point);
    const delta = decodeSet(point);
    if (delta.baseDigest === undefined || !sameDigest(base.digest ?? holderSetDigest(base.positions), delta.baseDigest))
      continue;
    const { baseDigest: _base, ...rest } = delta;
    stood.push({ point, set: { ...rest, positions: applyHolderSetDelta(base.positions, delta.positions) } });
  }
  return stood.slice(Math.max(0, stood.length - keep)).map(({ point, set }) => {
    if (set === undefined) return point;
    const { d: _delta, ...whole } = point;
    return { ...whole, p: Buffer.from(HolderPositions.encode(set).finish()).toString("base64") };
  });
}

const decodeSet = (point: SeriesPoint) => HolderPositions.decode(Buffer.from(point.p, "base64"));
