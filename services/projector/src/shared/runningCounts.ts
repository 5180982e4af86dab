import type { RunningCounts, SeriesPoint } from "@platform/read-models";

/**
 * The running counts through a point's block (network stats: extrinsics and transfers), from the
 * point before it in the series. They go on from that point only when it is the block's parent (one
 * block below, with the hash the block names as its parent) and carries counts itself. Otherwise
 * (the series' first point, a point from a source that did not count, a gap) a new run starts at
 * this block: a sum never spans a block it did not see, and `s` says where it starts.
 *
 * The fold recomputes every point from its first change on (series.ts), so a replayed block
 * (same hash) counts once, a block replaced by another fork's counts that fork's, and a block taken
 * back leaves the sum of the point below it standing.
 */
export function runningCountsOf(
  point: Pick<SeriesPoint, "b" | "k">,
  previous: Pick<SeriesPoint, "b" | "h" | "n"> | undefined,
): RunningCounts | undefined {
  const own = point.k;
  if (own === undefined) return undefined;
  const before = previous?.n;
  if (before === undefined || previous!.b !== point.b - 1 || previous!.h !== own.ph)
    return { s: point.b, x: own.x, r: own.r };
  return { s: before.s, x: before.x + own.x, r: before.r + own.r };
}

/** The point with its running counts (none without counts of its own). */
export function withRunningCounts(point: SeriesPoint, previous: SeriesPoint | undefined): SeriesPoint {
  const { n: _stale, ...rest } = point;
  const counts = runningCountsOf(point, previous);
  return counts === undefined ? rest : { ...rest, n: counts };
}
