import type { FlowCounters, RunningVolume, SeriesPoint } from "@platform/read-models";

/**
 * The running volume through a pool point's block, from the point before it in the series, as the
 * running counts go on (runningCounts.ts): from that point only when it is the block's parent (one
 * block below, with the hash the block names as its parent) and carries a running volume itself.
 * Otherwise (the series' first point, a point without a block volume, a gap, a block on another
 * branch) a new run starts at this block, so the sum never spans a block it did not see and `s`
 * says where it starts. Amounts are decimal strings summed as bigints (they exceed 2^53).
 */
export function runningVolumeOf(
  point: Pick<SeriesPoint, "b" | "u">,
  previous: Pick<SeriesPoint, "b" | "h" | "w"> | undefined,
): RunningVolume | undefined {
  const own = point.u;
  if (own === undefined) return undefined;
  const before = previous?.w;
  if (before === undefined || previous!.b !== point.b - 1 || previous!.h !== own.ph) return { s: point.b, v: own.v };
  return { s: before.s, v: (BigInt(before.v) + BigInt(own.v)).toString() };
}

/**
 * The point with its running volume (`w`) and, as its measure's cumulative counter, the series'
 * volume through it: the counter of the point before plus the block's own volume, whatever that
 * point is. The counter goes on across a run restart (it never goes down), so a bucket's or a
 * period's volume, a difference of two counters, counts the blocks the series saw between them and
 * is never negative; `w` is the exact total of an unbroken run. A point without a block volume (a
 * snapshot with `SubnetVolume` of its own, or from a source that did not count) is left as it is.
 */
export function withRunningVolume<P extends Omit<SeriesPoint, "a" | "n">>(
  point: P,
  previous: SeriesPoint | undefined,
): P {
  const { w: _stale, ...rest } = point;
  const running = runningVolumeOf(point, previous);
  if (running === undefined || point.u === undefined) return rest as P;
  const counter = BigInt(previous?.m?.cumulative ?? "0") + BigInt(point.u.v);
  const flow = point.u.f === undefined ? undefined : addFlows(previous?.m?.flow, point.u.f);
  return {
    ...rest,
    ...(point.m === undefined
      ? {}
      : { m: { ...point.m, cumulative: counter.toString(), ...(flow === undefined ? {} : { flow }) } }),
    w: running,
  } as P;
}

const ZERO_FLOW: FlowCounters = { b: "0", s: "0", bn: "0", sn: "0" };

/**
 * Order-flow counters plus a block's flow (`sign` -1: less it). Like the volume counter they go on
 * from whatever point is before (from zero when it kept none), so they never go down.
 */
export function addFlows(base: FlowCounters | undefined, own: FlowCounters, sign: 1n | -1n = 1n): FlowCounters {
  const from = base ?? ZERO_FLOW;
  const sum = (left: string, right: string) => (BigInt(left) + sign * BigInt(right)).toString();
  return { b: sum(from.b, own.b), s: sum(from.s, own.s), bn: sum(from.bn, own.bn), sn: sum(from.sn, own.sn) };
}

/** The flow counters before a point: its counters less its own block flow, when it has one. */
export function flowBefore(point: Pick<SeriesPoint, "u">, flow: FlowCounters): FlowCounters {
  return point.u?.f === undefined ? flow : addFlows(flow, point.u.f, -1n);
}

/** The counter before a point: the counter less the point's own block volume, when it has one. */
export function counterBefore(point: Pick<SeriesPoint, "u">, cumulative: string): string {
  return point.u === undefined ? cumulative : (BigInt(cumulative) - BigInt(point.u.v)).toString();
}
