import {
  BUCKET_SECONDS,
  type BucketAggregate,
  type BucketName,
  ordinalOf,
  type SeriesPoint,
} from "@platform/read-models";
import { maxDecimal, minDecimal } from "./decimal.js";
import { withRunningCounts } from "./runningCounts.js";
import { counterBefore, flowBefore, withRunningVolume } from "./runningVolume.js";

/**
 * A series: the snapshots of one thing (a subnet's pool, a price pair, a subnet's emission) in
 * chain order, each stored with the running aggregate of every bucket interval it falls in. The
 * aggregate a bucket shows is the one carried by its last point, so taking points off the tail (a
 * reorganisation) restores the buckets exactly: the new last point of a bucket carries what the
 * bucket was before the removed points arrived. Points that count their block's contents (`k`)
 * carry the running counts the same way (`n`, runningCounts.ts), and pool points with their block's
 * volume (`u`) the running volume and the cumulative volume counter (`w`, `m.cumulative`,
 * runningVolume.ts).
 */

export type NewPoint = Omit<SeriesPoint, "a" | "n" | "w">;

export type SeriesOp = { kind: "add"; point: NewPoint } | { kind: "remove"; block: number; hash: string };

/** Where a batch's operations start: below it nothing changes. */
export function lowestOrdinal(ops: readonly SeriesOp[]): number {
  let lowest = Number.POSITIVE_INFINITY;
  for (const op of ops) lowest = Math.min(lowest, op.kind === "add" ? op.point.o : ordinalOf(op.block));
  return lowest;
}

export interface LoadedTail {
  /** The newest point below the lowest ordinal, if any. */
  base: SeriesPoint | undefined;
  /** Every stored point at or above the lowest ordinal, in order. */
  tail: SeriesPoint[];
}

export interface FoldedTail {
  /** The points that now stand at or above the lowest ordinal, in order, aggregates recomputed. */
  points: SeriesPoint[];
  /** The earliest time any change touched (ms), or undefined when nothing changed. */
  changedFrom: number | undefined;
}

/**
 * Applies the operations to the loaded tail: an add replaces a point of the same ordinal, a
 * remove takes out the point of that block and hash. The running volume, aggregates and running
 * counts of every point from the first change on are computed again from `base`, in order.
 */
export function foldSeries(loaded: LoadedTail, ops: readonly SeriesOp[], buckets: readonly BucketName[]): FoldedTail {
  let raw: NewPoint[] = loaded.tail.map(({ a: _aggregates, n: _counts, w: _volume, ...point }) => point);
  let changedFrom: number | undefined;
  const touch = (time: number) => {
    changedFrom = changedFrom === undefined ? time : Math.min(changedFrom, time);
  };
  for (const op of ops) {
    if (op.kind === "add") {
      const existing = raw.find((point) => point.o === op.point.o);
      if (existing !== undefined && existing.h === op.point.h && existing.p === op.point.p) continue;
      if (existing !== undefined) touch(existing.t);
      touch(op.point.t);
      raw = raw.filter((point) => point.o !== op.point.o);
      raw.push(op.point);
      raw.sort((left, right) => left.o - right.o);
    } else {
      const removed = raw.filter((point) => point.b === op.block && point.h === op.hash);
      if (removed.length === 0) continue;
      for (const point of removed) touch(point.t);
      raw = raw.filter((point) => !(point.b === op.block && point.h === op.hash));
    }
  }
  if (changedFrom === undefined) return { points: loaded.tail, changedFrom: undefined };
  const points: SeriesPoint[] = [];
  let previous = loaded.base;
  for (const point of raw) {
    const next = withRunningCounts(withAggregates(withRunningVolume(point, previous), previous, buckets), previous);
    points.push(next);
    previous = next;
  }
  return { points, changedFrom };
}

/** The point with the aggregates of its buckets, continuing `previous` where it shares a bucket. */
export function withAggregates(
  point: NewPoint,
  previous: SeriesPoint | undefined,
  buckets: readonly BucketName[],
): SeriesPoint {
  if (point.m === undefined || buckets.length === 0) return { ...point };
  const measure = point.m;
  const aggregates: Partial<Record<BucketName, BucketAggregate>> = {};
  for (const name of buckets) {
    const start = bucketStart(point.t, name);
    const before = previous?.a?.[name];
    const continues = before !== undefined && before.s === start;
    const aggregate: BucketAggregate = continues
      ? {
          s: start,
          o: before.o,
          h: maxDecimal(before.h, measure.price),
          l: minDecimal(before.l, measure.price),
          c: measure.price,
          b: point.b,
        }
      : { s: start, o: measure.price, h: measure.price, l: measure.price, c: measure.price, b: point.b };
    if (measure.cumulative !== undefined) {
      // Before the point: its counter less its own block volume, where the point has one.
      const counterStart = counterBefore(point, measure.cumulative);
      aggregate.v0 = continues ? (before.v0 ?? counterStart) : (before?.v1 ?? previous?.m?.cumulative ?? counterStart);
      aggregate.v1 = measure.cumulative;
    }
    if (measure.flow !== undefined) {
      const flowStart = flowBefore(point, measure.flow);
      aggregate.f0 = continues ? (before.f0 ?? flowStart) : (before?.f1 ?? previous?.m?.flow ?? flowStart);
      aggregate.f1 = measure.flow;
    }
    if (measure.close !== undefined) aggregate.x = measure.close;
    aggregates[name] = aggregate;
  }
  return { ...point, a: aggregates };
}

/** Start of the UTC-aligned bucket holding `timeMs`, unix seconds. */
export const bucketStart = (timeMs: number, name: BucketName): number => {
  const size = BUCKET_SECONDS[name];
  return Math.floor(timeMs / 1_000 / size) * size;
};

/**
 * The bucket aggregates to store after a fold, per interval: every bucket at or after the first
 * changed one is replaced by the aggregate of its last standing point (`base` included, as it may
 * share a bucket with removed points). Buckets from `from` on without a standing point are gone.
 */
export function bucketsFrom(
  base: SeriesPoint | undefined,
  points: readonly SeriesPoint[],
  name: BucketName,
  changedFrom: number,
): { from: number; aggregates: BucketAggregate[] } {
  const from = bucketStart(changedFrom, name);
  const last = new Map<number, BucketAggregate>();
  for (const point of base === undefined ? points : [base, ...points]) {
    const aggregate = point.a?.[name];
    if (aggregate !== undefined && aggregate.s >= from) last.set(aggregate.s, aggregate);
  }
  return { from, aggregates: [...last.values()] };
}
