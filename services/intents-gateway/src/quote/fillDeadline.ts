import type { FillDeadlineBounds } from "../chains/readChainState.js";

export interface FillDeadlineInputs {
  /** Latest block timestamps, unix seconds. */
  originTimestamp: number;
  destinationTimestamp: number;
  bounds: FillDeadlineBounds;
  /** The user may open the order any time until the quote expires. */
  quoteTtlSeconds: number;
  preferredWindowSeconds: number;
  fillTimeEstimateSeconds: number;
}

/** Room for blocks mined and clocks drifting between the reads and the `open` transaction. */
export const DEADLINE_SLACK_SECONDS = 30;

const UINT32_MAX = 4_294_967_295;

/**
 * The suggested `fillDeadline`: the destination's clock (where fills are judged) plus the preferred
 * window, but never less than the fill time estimate. It is then kept inside the settler's bounds on
 * the origin's clock for an `open` sent at any time until the quote expires: not before
 * `min + ttl + slack`, and not after `max` (opening later only raises the upper bound). When both
 * cannot hold, the upper bound wins: a deadline past it always reverts, one below the lower bound
 * only if the user waits.
 */
export function suggestFillDeadline(inputs: FillDeadlineInputs): number {
  const window = Math.max(inputs.preferredWindowSeconds, inputs.fillTimeEstimateSeconds);
  const preferred = inputs.destinationTimestamp + window;
  const earliest =
    inputs.originTimestamp + inputs.bounds.minFillWindow + inputs.quoteTtlSeconds + DEADLINE_SLACK_SECONDS;
  const latest = inputs.originTimestamp + inputs.bounds.maxFillBuffer;
  return Math.min(Math.min(Math.max(preferred, earliest), latest), UINT32_MAX);
}

export type DeadlineVerdict =
  | { status: "pass" | "warn"; earliest: number; latest: number; marginSeconds: number }
  | { status: "fail"; earliest: number; latest: number };

/**
 * How a deadline fares against the bounds as of an origin timestamp. Within the bounds but closer
 * to the lower one than `warnMarginSeconds` is a warning: the next blocks will push it out.
 */
export function judgeFillDeadline(
  fillDeadline: number,
  originTimestamp: number,
  bounds: FillDeadlineBounds,
  warnMarginSeconds: number,
): DeadlineVerdict {
  const earliest = originTimestamp + bounds.minFillWindow;
  const latest = originTimestamp + bounds.maxFillBuffer;
  if (fillDeadline < earliest || fillDeadline > latest) return { status: "fail", earliest, latest };
  const marginSeconds = fillDeadline - earliest;
  return { status: marginSeconds < warnMarginSeconds ? "warn" : "pass", earliest, latest, marginSeconds };
}
