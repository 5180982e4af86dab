import { notFound } from "@platform/errors";
import { type HistoryDb, historyTables } from "@platform/history";
import { historySeriesKey, type SeriesPoint, wholeHolderPoints } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { historyRead } from "./historyRead.js";
import { parse, pointsAtBlock, run } from "./readModel.js";

/**
 * Where a series lives: Redis keeps each series' newest points (its hot window), the history
 * database (history.series_points, keyed by the Redis points key) every point. Absent, only Redis.
 */
export interface SeriesStores {
  redis: Redis;
  history?: HistoryDb | undefined;
}

/**
 * The state of each series at `block`: its newest point at or below it, wherever it lives. Redis
 * holds the newest points of a series (trimming drops the oldest), so when it holds any point at or
 * below the block that point is the one, and the history database is asked only for the series whose
 * Redis window starts above the block (one query for all of them). Without a history database such
 * a series cannot be answered: BLOCK_BEFORE_HISTORY. A series Redis holds nothing of, and the
 * history database neither, had no point by then (a subnet registered later): undefined.
 */
export async function seriesAt(
  stores: SeriesStores,
  keys: readonly string[],
  block: number,
): Promise<(SeriesPoint | undefined)[]> {
  const hot = await pointsAtBlock(stores.redis, keys, block);
  const missing = keys.filter((_key, index) => hot[index] === undefined);
  if (missing.length === 0) return hot;
  const cold = stores.history
    ? await historyPointsAt(stores.history, missing, block)
    : await beyondWindow(stores.redis, missing, block);
  return hot.map((point, index) => point ?? cold.get(keys[index]!));
}

/** Without a history database: a series whose Redis window starts above the block cannot tell its state then. */
async function beyondWindow(redis: Redis, keys: readonly string[], block: number): Promise<Map<string, SeriesPoint>> {
  const counts = await run(redis, (pipeline) => keys.forEach((key) => pipeline.zcard(key)));
  if (counts.some((count) => Number(count) > 0)) throw blockBeforeHistory(block, "the newest points kept in memory");
  return new Map();
}

/**
 * Each series' state at `block` in history.series_points, by series key: its newest point at or
 * below the block, or for a series kept as keyframes and deltas (holder sets) the whole set they
 * make there. The subnets' pools and emissions are read under the market's keys (read-models
 * historySeries.ts): the same snapshots, which the market's points carry with its own measures
 * besides; a reader decodes the snapshot alone. In a catch-up the market may stand behind the
 * subnets read model, and a block it has not reached yet answers its newest point below it.
 */
async function historyPointsAt(
  db: HistoryDb,
  keys: readonly string[],
  block: number,
): Promise<Map<string, SeriesPoint | undefined>> {
  const stored = await storedPointsAt(db, [...new Set(keys.map(historySeriesKey))], block);
  return new Map(keys.map((key) => [key, stored.get(historySeriesKey(key))]));
}

async function storedPointsAt(
  db: HistoryDb,
  keys: readonly string[],
  block: number,
): Promise<Map<string, SeriesPoint | undefined>> {
  // Per series, one index walk back to its newest keyframe at or below the block (the primary key
  // is (series, block, ordinal); every point of a series without deltas is one, so that is its
  // newest point), then the points from there on; the partitions above the block are pruned.
  const table = historyTables.seriesPoints;
  const rows = await historyRead(() =>
    db.unsafe(
      `select wanted.series, since.point from unnest($1::text[]) as wanted(series)
       cross join lateral (
         select block, ordinal from ${table}
         where series = wanted.series and block <= $2 and keyframe
         order by block desc, ordinal desc limit 1
       ) as keyframe
       cross join lateral (
         select point, block, ordinal from ${table}
         where series = wanted.series and (block, ordinal) >= (keyframe.block, keyframe.ordinal) and block <= $2
       ) as since
       order by wanted.series, since.block, since.ordinal`,
      [keys as string[], block],
    ),
  );
  const bySeries = new Map<string, SeriesPoint[]>();
  for (const row of rows) {
    const points = bySeries.get(row.series as string) ?? [];
    points.push(parse(row.point as string)!);
    bySeries.set(row.series as string, points);
  }
  return new Map(
    [...bySeries].map(([series, points]) => [
      series,
      points.length === 1 ? points[0] : wholeHolderPoints(points, 1)[0],
    ]),
  );
}

/**
 * The block is older than what the stores serving the read hold: before the first block the
 * platform followed, or, without the history database, older than the newest points Redis keeps.
 */
export function blockBeforeHistory(block: number, held: string) {
  return notFound("BLOCK_BEFORE_HISTORY", `block ${block} is older than ${held}`, { blockNumber: block });
}
