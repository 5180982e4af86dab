import { BUCKET_SECONDS, type BucketName, type SeriesPoint } from "@platform/read-models";
import { execPipeline, type Redis } from "@platform/store";
import { bucketsFrom, type FoldedTail, foldSeries, type LoadedTail, lowestOrdinal, type SeriesOp } from "./series.js";

type ChainableCommander = ReturnType<Redis["multi"]>;

/**
 * How one series lives in Redis: `points` is a zset of SeriesPoint JSON scored by ordinal (the
 * newest `keepPoints` are kept); each bucket interval has a zset of BucketAggregate JSON scored by
 * bucket start (unix seconds), kept for `keepBucketSeconds` behind the newest point.
 */
export interface SeriesLayout {
  points: string;
  buckets: Partial<Record<BucketName, string>>;
  keepPoints: number;
  /** Per interval; absent = kept forever. */
  keepBucketSeconds?: Partial<Record<BucketName, number>>;
}

export interface PendingSeries {
  layout: SeriesLayout;
  ops: SeriesOp[];
}

export interface LoadedSeries extends PendingSeries {
  lowest: number;
  loaded: LoadedTail;
}

/** Watches the series' keys, then reads the point below the batch's lowest ordinal and every point from it on. */
export async function loadSeries(redis: Redis, pending: readonly PendingSeries[]): Promise<LoadedSeries[]> {
  const withOps = pending.filter((series) => series.ops.length > 0);
  if (withOps.length === 0) return [];
  await redis.watch(...withOps.flatMap((series) => [series.layout.points, ...Object.values(series.layout.buckets)]));
  const pipeline = redis.pipeline();
  const lowests = withOps.map((series) => lowestOrdinal(series.ops));
  withOps.forEach((series, index) => {
    const lowest = lowests[index]!;
    pipeline.zrange(series.layout.points, `(${lowest}`, "-inf", "BYSCORE", "REV", "LIMIT", 0, 1);
    pipeline.zrange(series.layout.points, lowest, "+inf", "BYSCORE");
  });
  const results = await execPipeline(pipeline);
  return withOps.map((series, index) => {
    const base = results[index * 2] as string[];
    const tail = results[index * 2 + 1] as string[];
    return {
      ...series,
      lowest: lowests[index]!,
      loaded: { base: base[0] === undefined ? undefined : parsePoint(base[0]), tail: tail.map(parsePoint) },
    };
  });
}

/** Folds the loaded series and queues what changed on `multi`; returns the folds by points key. */
export function queueSeriesWrites(
  multi: ChainableCommander,
  loaded: readonly LoadedSeries[],
): Map<string, { folded: FoldedTail; base: SeriesPoint | undefined }> {
  const folds = new Map<string, { folded: FoldedTail; base: SeriesPoint | undefined }>();
  for (const series of loaded) {
    const names = Object.keys(series.layout.buckets) as BucketName[];
    const folded = foldSeries(series.loaded, series.ops, names);
    folds.set(series.layout.points, { folded, base: series.loaded.base });
    if (folded.changedFrom === undefined) continue;
    const { layout } = series;
    multi.zremrangebyscore(layout.points, series.lowest, "+inf");
    // Only the newest keepPoints can stand after the trim below: a catch-up batch folds hundreds of
    // a subnet's holder sets (~270 KB of base64 each) into a series that keeps 4, and serialising
    // and sending the rest only for the trim to drop them was time and garbage for nothing
    // (bench/HISTORY.md, the Finney soak of 7 Dec).
    for (const point of folded.points.slice(-layout.keepPoints))
      multi.zadd(layout.points, point.o, JSON.stringify(point));
    multi.zremrangebyrank(layout.points, 0, -(layout.keepPoints + 1));
    const newest = folded.points.at(-1) ?? series.loaded.base;
    for (const name of names) {
      const key = layout.buckets[name]!;
      const { from, aggregates } = bucketsFrom(series.loaded.base, folded.points, name, folded.changedFrom);
      multi.zremrangebyscore(key, from, "+inf");
      for (const aggregate of aggregates) multi.zadd(key, aggregate.s, JSON.stringify(aggregate));
      const keep = layout.keepBucketSeconds?.[name];
      if (keep !== undefined && newest !== undefined)
        multi.zremrangebyscore(key, "-inf", `(${Math.floor(newest.t / 1_000) - keep - BUCKET_SECONDS[name]}`);
    }
  }
  return folds;
}

export function parsePoint(text: string): SeriesPoint {
  return JSON.parse(text) as SeriesPoint;
}
