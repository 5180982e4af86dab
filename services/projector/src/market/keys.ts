import { type BucketName, marketKeys } from "@platform/read-models";
import type { SeriesLayout } from "../shared/seriesStore.js";

// How long the projector keeps each series; the layout itself (keys, series, buckets) is libs/read-models market.ts.

const DAY = 86_400;
const BUCKET_KEEP: Partial<Record<BucketName, number>> = { "5m": 35 * DAY, "1h": 400 * DAY };
export const SNAPSHOT_POINTS_KEPT = 64;
export const PRICE_POINTS_KEPT = 10_000;

/** The hot window by default (REDIS_HOT_WINDOW_BLOCKS): a Finney day at 12 s blocks. */
export const DEFAULT_HOT_WINDOW_BLOCKS = 7_200;

/** A pool's series: its newest `keepPoints` per-block points (the hot window, REDIS_HOT_WINDOW_BLOCKS) in Redis. */
export const poolLayout = (netuid: number, keepPoints: number): SeriesLayout => ({
  points: marketKeys.poolPoints(netuid),
  buckets: {
    "5m": marketKeys.poolBuckets(netuid, "5m"),
    "1h": marketKeys.poolBuckets(netuid, "1h"),
    "4h": marketKeys.poolBuckets(netuid, "4h"),
    "1d": marketKeys.poolBuckets(netuid, "1d"),
  },
  keepPoints,
  keepBucketSeconds: BUCKET_KEEP,
});

export const priceLayout = (asset: string, vs: string): SeriesLayout => ({
  points: marketKeys.pricePoints(asset, vs),
  buckets: {
    "5m": marketKeys.priceBuckets(asset, vs, "5m"),
    "1h": marketKeys.priceBuckets(asset, vs, "1h"),
    "4h": marketKeys.priceBuckets(asset, vs, "4h"),
    "1d": marketKeys.priceBuckets(asset, vs, "1d"),
  },
  keepPoints: PRICE_POINTS_KEPT,
  keepBucketSeconds: BUCKET_KEEP,
});

export const emissionLayout = (netuid: number): SeriesLayout => ({
  points: marketKeys.emissionPoints(netuid),
  buckets: {},
  keepPoints: SNAPSHOT_POINTS_KEPT,
});

export const statsLayout: SeriesLayout = {
  points: marketKeys.statsPoints,
  buckets: {},
  keepPoints: SNAPSHOT_POINTS_KEPT,
};
