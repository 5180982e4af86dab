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
  const [ended, oldest] = await Promise.all([
    bucketsEndedBy(redis, bucketKeys, nowMs - DAY_MS, FIVE_MINUTES),
    oldestBuckets(redis, bucketKeys),
  ]);
  return bucketKeys.map((_key, index) => {
    const now = current[index];
    const before = ended[index]?.v1 ?? oldest[index]?.v0;
    if (now === undefined || before === undefined) return undefined;
    const volume = subtract(now, before);
    return volume.startsWith("-") ? undefined : volume;
  });
}
