import { randomUUID } from "node:crypto";
import { type HistoryDb, type HistoryTransaction, historyTables } from "@platform/history";
import type { Logger } from "@platform/log";
import { BUCKET_SECONDS, type BucketName, type SeriesPoint, wholeHolderPoints } from "@platform/read-models";
import { execPipeline, type Redis } from "@platform/store";
import type { SeriesLayout } from "./seriesStore.js";
import { parsePoint } from "./seriesStore.js";

/** Series per round trip while restoring (each with up to its window of points). */
const SERIES_PER_READ = 32;

export interface SeriesRestoreOptions {
  /** The projection's name in history.projection_offsets and history.projection_state. */
  projection: "market" | "subnets";
  redis: Redis;
  history: HistoryDb;
  log: Logger;
  /** The Redis key prefix every series of the projection starts with, e.g. `rm:{data}:market:`. */
  seriesPrefix: string;
  /** A series' layout (its window and buckets) from its points key; undefined for a key it does not know. */
  layoutOf(seriesKey: string): SeriesLayout | undefined;
  /** How Redis keeps each of the projection's state keys (projection_state). */
  stateKind(key: string): "set" | "hash";
  offsetKey(topic: string, partition: number): string;
  versionKey: string;
  /**
   * Series of this read model whose history another projection keeps under its own keys
   * (read-models historySeries.ts): the keys under `prefix` that `keyOf` maps to one of this read
   * model's series are copied into it, each point as `pointOf` makes it.
   */
  borrowed?: {
    prefix: string;
    keyOf(storedKey: string): string | undefined;
    pointOf(point: SeriesPoint): SeriesPoint;
  };
  /**
   * Writes what Redis derives from the series and the state (listings, rankings), given each
   * restored series' newest point; runs after they are back.
   */
  derive(newest: ReadonlyMap<string, SeriesPoint>): Promise<void>;
}

/**
 * Rebuilds a snapshot projection's Redis read model from PostgreSQL after Redis lost it
 * (SupervisedProjection.restore): each series' newest points (its Redis window) and its buckets,
 * the projection's sets and hashes, then what Redis derives from them, and last the offsets and a
 * new version token, all read in one repeatable-read snapshot, so the offsets name exactly what was
 * copied. The consumer then replays only the topics' tail; a record it replays that the copy held
 * folds to the same points (an add of a point that stands is no change).
 */
export async function restoreSeries(options: SeriesRestoreOptions): Promise<{ series: number; points: number }> {
  const { redis, history } = options;
  let points = 0;
  const newest = new Map<string, SeriesPoint>();
  await history.begin("isolation level repeatable read read only", async (tx) => {
    const own: Copy[] = (await seriesKeys(tx, options.seriesPrefix)).map((key) => ({ from: key, to: key }));
    const borrowed = options.borrowed;
    const lent: Copy[] =
      borrowed === undefined
        ? []
        : (await seriesKeys(tx, borrowed.prefix)).flatMap((from) => {
            const to = borrowed.keyOf(from);
            return to === undefined ? [] : [{ from, to, pointOf: borrowed.pointOf }];
          });
    const copies = [...own, ...lent].filter((copy) => options.layoutOf(copy.to) !== undefined);
    for (let at = 0; at < copies.length; at += SERIES_PER_READ) {
      const chunk = copies.slice(at, at + SERIES_PER_READ);
      points += await copyPoints(tx, redis, chunk, options.layoutOf, newest);
      // A lent series' buckets are its owner's: this read model keeps none of them.
      await copyBuckets(
        tx,
        redis,
        chunk.filter((copy) => copy.pointOf === undefined).map((copy) => copy.to),
        options.layoutOf,
        newest,
      );
    }
    await copyState(tx, options);
    await options.derive(newest);
    const offsets = await tx.unsafe(
      `select topic, partition, "offset"::text as "offset" from ${historyTables.offsets}
       where projection = $1 and "offset" >= 0`,
      [options.projection],
    );
    const multi = redis.multi();
    for (const row of offsets)
      multi.set(options.offsetKey(row.topic as string, row.partition as number), row.offset as string);
    multi.set(options.versionKey, randomUUID());
    await execPipeline(multi);
  });
  options.log.info(
    { series: newest.size, points },
    `${options.projection} read model copied from the history database`,
  );
  return { series: newest.size, points };
}

/** A series copied from history.series_points (`from`) into its Redis key (`to`), each point as `pointOf` makes it. */
interface Copy {
  from: string;
  to: string;
  pointOf?: (point: SeriesPoint) => SeriesPoint;
}

/** The projection's series keys, through the primary key: one index probe per series (a loose index scan). */
async function seriesKeys(tx: HistoryTransaction, prefix: string): Promise<string[]> {
  // Every key of the prefix sorts between it and the prefix with its last character raised.
  const upper = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  const table = historyTables.seriesPoints;
  const rows = await tx.unsafe(
    `with recursive keys as (
       select (select min(series) from ${table} where series >= $1 and series < $2) as series
       union all
       select (select min(series) from ${table} p where p.series > keys.series and p.series < $2)
       from keys where keys.series is not null
     )
     select series from keys where series is not null`,
    [prefix, upper],
  );
  return rows.map((row) => row.series as string);
}

/**
 * Each series' newest points (its window), into its zset; returns how many. A series kept as
 * keyframes and deltas (holder sets) is read back to the keyframe its window starts from, and its
 * window is made of the whole sets that gives (read-models holderPoints.ts).
 */
async function copyPoints(
  tx: HistoryTransaction,
  redis: Redis,
  copies: readonly Copy[],
  layoutOf: SeriesRestoreOptions["layoutOf"],
  newest: Map<string, SeriesPoint>,
): Promise<number> {
  const table = historyTables.seriesPoints;
  const rows = await tx.unsafe(
    `select s.i, p.point from unnest($1::text[], $2::int[]) with ordinality as s(series, keep, i)
     cross join lateral (select point, block, ordinal from ${table} p
       where p.series = s.series order by block desc, ordinal desc limit s.keep) p
     order by s.i, p.block, p.ordinal`,
    [copies.map((copy) => copy.from), copies.map((copy) => layoutOf(copy.to)!.keepPoints)] as never,
  );
  // By the Redis key each window goes to.
  const windows = new Map<string, SeriesPoint[]>();
  for (const row of rows) {
    const copy = copies[Number(row.i) - 1]!;
    const points = windows.get(copy.to) ?? [];
    const point = parsePoint(row.point as string);
    points.push(copy.pointOf === undefined ? point : copy.pointOf(point));
    windows.set(copy.to, points);
  }
  const withDeltas = [...windows].filter(([, points]) => points[0]?.d !== undefined);
  const earlier = await keyframesBefore(tx, withDeltas);
  const pipeline = redis.pipeline();
  let copied = 0;
  for (const [series, points] of windows) {
    const window = earlier.has(series)
      ? wholeHolderPoints([...earlier.get(series)!, ...points], layoutOf(series)!.keepPoints)
      : points.some((point) => point.d !== undefined)
        ? wholeHolderPoints(points)
        : points;
    for (const point of window) pipeline.zadd(series, point.o, JSON.stringify(point));
    if (window.length > 0) newest.set(series, window.at(-1)!);
    copied += window.length;
  }
  await execPipeline(pipeline);
  return copied;
}

/** For each window that starts with a delta, the points from the series' newest keyframe before it up to it. */
async function keyframesBefore(
  tx: HistoryTransaction,
  windows: readonly [string, SeriesPoint[]][],
): Promise<Map<string, SeriesPoint[]>> {
  if (windows.length === 0) return new Map();
  const table = historyTables.seriesPoints;
  const rows = await tx.unsafe(
    `select s.series, p.point from unnest($1::text[], $2::bigint[], $3::bigint[]) as s(series, block, ordinal)
     cross join lateral (select block, ordinal from ${table} k
       where k.series = s.series and (k.block, k.ordinal) < (s.block, s.ordinal) and k.keyframe
       order by block desc, ordinal desc limit 1) k
     join ${table} p on p.series = s.series and (p.block, p.ordinal) >= (k.block, k.ordinal)
       and (p.block, p.ordinal) < (s.block, s.ordinal)
     order by s.series, p.block, p.ordinal`,
    [
      windows.map(([series]) => series),
      windows.map(([, points]) => String(points[0]!.b)),
      windows.map(([, points]) => String(points[0]!.o)),
    ] as never,
  );
  const before = new Map<string, SeriesPoint[]>();
  for (const row of rows) {
    const points = before.get(row.series as string) ?? [];
    points.push(parsePoint(row.point as string));
    before.set(row.series as string, points);
  }
  return before;
}

/** Each series' bucket aggregates within the window Redis keeps them for (seriesStore.ts's trim rule). */
async function copyBuckets(
  tx: HistoryTransaction,
  redis: Redis,
  keys: readonly string[],
  layoutOf: SeriesRestoreOptions["layoutOf"],
  newest: ReadonlyMap<string, SeriesPoint>,
): Promise<void> {
  const wanted: { series: string; bucket: BucketName; key: string; from: number }[] = [];
  for (const series of keys) {
    const layout = layoutOf(series)!;
    const last = newest.get(series);
    for (const [name, key] of Object.entries(layout.buckets) as [BucketName, string][]) {
      const keep = layout.keepBucketSeconds?.[name];
      const from =
        keep === undefined || last === undefined ? 0 : Math.floor(last.t / 1_000) - keep - BUCKET_SECONDS[name];
      wanted.push({ series, bucket: name, key, from });
    }
  }
  if (wanted.length === 0) return;
  const rows = await tx.unsafe(
    `select w.key, b.start::text as start, b.aggregate
     from unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) as w(series, bucket, key, start_from)
     join ${historyTables.seriesBuckets} b on b.series = w.series and b.bucket = w.bucket and b.start >= w.start_from`,
    [
      wanted.map((entry) => entry.series),
      wanted.map((entry) => entry.bucket),
      wanted.map((entry) => entry.key),
      wanted.map((entry) => String(entry.from)),
    ] as never,
  );
  const pipeline = redis.pipeline();
  for (const row of rows) pipeline.zadd(row.key as string, row.start as string, row.aggregate as string);
  await execPipeline(pipeline);
}

/** The projection's sets and hashes (price tombstones and pairs, pending holder chunks, subnet removals). */
async function copyState(tx: HistoryTransaction, options: SeriesRestoreOptions): Promise<void> {
  const rows = await tx.unsafe(
    `select key, field, value from ${historyTables.projectionState} where projection = $1 order by key, field`,
    [options.projection],
  );
  const pipeline = options.redis.pipeline();
  for (const row of rows) {
    const key = row.key as string;
    if (options.stateKind(key) === "set") pipeline.sadd(key, row.field as string);
    else pipeline.hset(key, row.field as string, row.value as string);
  }
  await execPipeline(pipeline);
}
