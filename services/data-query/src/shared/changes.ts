import type { BucketAggregate, FlowCounters } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { percentChange, subtract } from "./numbers.js";
import { bucketsEndedBy, bucketsEndedByEach, oldestBuckets } from "./readModel.js";

const FIVE_MINUTES = 300;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/**
 * Changes over a period, from the five-minute buckets: the reference value for "now − period" is
 * the close of the last five-minute bucket that ended at or before that time (so within five
 * minutes of it). Absent when the series does not reach back that far.
 */
export async function priceChanges(
  redis: Redis,
  bucketKeys: readonly string[],
  nowMs: number,
  periodsMs: readonly number[],
  current: readonly string[],
): Promise<(string | undefined)[][]> {
  // Every period's reference bucket of every series in one pipeline.
  const perPeriod = await bucketsEndedByEach(
    redis,
    bucketKeys,
    periodsMs.map((period) => nowMs - period),
    FIVE_MINUTES,
  );
  return bucketKeys.map((_key, index) =>
    periodsMs.map((_period, at) => {
      const bucket = perPeriod[at]![index];
      return bucket === undefined ? undefined : percentChange(bucket.c, current[index]!);
    }),
  );
}

/** The five-minute buckets a 24-hour difference starts from: per key, the last one ended 24 hours ago and the oldest. */
export interface DayBuckets {
  ended: (BucketAggregate | undefined)[];
  oldest: (BucketAggregate | undefined)[];
}

export async function dayBuckets(redis: Redis, bucketKeys: readonly string[], nowMs: number): Promise<DayBuckets> {
  const [ended, oldest] = await Promise.all([
    bucketsEndedBy(redis, bucketKeys, nowMs - DAY_MS, FIVE_MINUTES),
    oldestBuckets(redis, bucketKeys),
  ]);
  return { ended, oldest };
}

/**
 * Volume over the last 24 hours from a cumulative counter: now minus its value at the end of the
 * last five-minute bucket ended 24 hours ago; when the series is younger than that, since its
 * first point (the whole volume it saw). The counter a pool series keeps from its block volumes
 * never goes down, a run restart included (projector runningVolume.ts); one that did (a chain
 * counter reset, as a re-registered subnet's `SubnetVolume`) gives no volume, never a negative one.
 */
export async function volumes24h(
  redis: Redis,
  bucketKeys: readonly string[],
  nowMs: number,
  current: readonly (string | undefined)[],
): Promise<(string | undefined)[]> {
  return volumesOverDay(await dayBuckets(redis, bucketKeys, nowMs), current);
}

export function volumesOverDay(buckets: DayBuckets, current: readonly (string | undefined)[]): (string | undefined)[] {
  return current.map((now, index) => {
    const before = buckets.ended[index]?.v1 ?? buckets.oldest[index]?.v0;
    if (now === undefined || before === undefined) return undefined;
    const volume = subtract(now, before);
    return volume.startsWith("-") ? undefined : volume;
  });
}

const NO_FLOW: FlowCounters = { b: "0", s: "0", bn: "0", sn: "0" };

/**
 * The order flow over the last 24 hours (TAO bought and sold, buys and sells) from a pool's flow
 * counters, as volumesOverDay from its volume counter. The counters begin with the first snapshot
 * carrying a block's flow, at zero: a bucket from before then (or none) starts them at zero, so the
 * flow counts every block the platform saw with one.
 */
export function flowsOverDay(
  buckets: DayBuckets,
  current: readonly (FlowCounters | undefined)[],
): (FlowCounters | undefined)[] {
  return current.map((now, index) => {
    if (now === undefined) return undefined;
    const before = buckets.ended[index]?.f1 ?? buckets.oldest[index]?.f0 ?? NO_FLOW;
    const flow = {
      b: subtract(now.b, before.b),
      s: subtract(now.s, before.s),
      bn: subtract(now.bn, before.bn),
      sn: subtract(now.sn, before.sn),
    };
    return Object.values(flow).some((value) => value.startsWith("-")) ? undefined : flow;
  });
}
