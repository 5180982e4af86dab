import { invalidArgument } from "@platform/errors";
import { Interval } from "@platform/proto/common/v1/common";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
/** 1970-01-05 (a Monday): weeks are ISO weeks, Monday 00:00 UTC. */
const MONDAY_OFFSET = 4 * DAY;

/** Length of a time interval in ms; BLOCK (and UNSPECIFIED) have none. */
export function intervalMs(interval: Interval): number {
  switch (interval) {
    case Interval.INTERVAL_FIVE_MINUTES:
      return 5 * MINUTE;
    case Interval.INTERVAL_ONE_HOUR:
      return HOUR;
    case Interval.INTERVAL_FOUR_HOURS:
      return 4 * HOUR;
    case Interval.INTERVAL_ONE_DAY:
      return DAY;
    case Interval.INTERVAL_ONE_WEEK:
      return WEEK;
    default:
      throw new RangeError(`interval ${interval} has no fixed length`);
  }
}

/** Start (ms) of the UTC-aligned bucket holding `ms`. Weeks start on Monday 00:00 UTC. */
export function bucketStartMs(ms: number, interval: Interval): number {
  const size = intervalMs(interval);
  const offset = interval === Interval.INTERVAL_ONE_WEEK ? MONDAY_OFFSET : 0;
  return Math.floor((ms - offset) / size) * size + offset;
}

/** Starts of the buckets that overlap the half-open window [startMs, endMs), in ascending order. */
export function bucketStarts(startMs: number, endMs: number, interval: Interval): number[] {
  const size = intervalMs(interval);
  const starts: number[] = [];
  for (let at = bucketStartMs(startMs, interval); at < endMs; at += size) starts.push(at);
  return starts;
}

export interface IntervalRules {
  /** Intervals the route accepts. */
  allowed: readonly Interval[];
  /** Applied for UNSPECIFIED. */
  fallback: Interval;
}

/** The interval to apply; one the route does not accept is INVALID_PARAMETER naming `interval`. */
export function resolveInterval(requested: Interval | undefined, rules: IntervalRules): Interval {
  const interval = requested === undefined || requested === Interval.INTERVAL_UNSPECIFIED ? rules.fallback : requested;
  if (!rules.allowed.includes(interval)) {
    throw invalidArgument(
      "INVALID_PARAMETER",
      `interval must be one of ${rules.allowed.map(intervalName).join(", ")}`,
      { parameter: "interval" },
    );
  }
  return interval;
}

/** The API spelling of an interval ("1h"), as the gateway accepts it. */
export function intervalName(interval: Interval): string {
  switch (interval) {
    case Interval.INTERVAL_BLOCK:
      return "block";
    case Interval.INTERVAL_FIVE_MINUTES:
      return "5m";
    case Interval.INTERVAL_ONE_HOUR:
      return "1h";
    case Interval.INTERVAL_FOUR_HOURS:
      return "4h";
    case Interval.INTERVAL_ONE_DAY:
      return "1d";
    case Interval.INTERVAL_ONE_WEEK:
      return "1w";
    default:
      return String(interval);
  }
}

export const DURATION = { MINUTE, HOUR, DAY, WEEK } as const;
