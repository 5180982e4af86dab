import { notFound } from "@platform/errors";
import { type HistoryDb, historyTables } from "@platform/history";
import type { SeriesPoint } from "@platform/read-models";
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

/** Each series' newest point at or below `block` in history.series_points, by series key. */
async function historyPointsAt(
  db: HistoryDb,
  keys: readonly string[],
  block: number,
): Promise<Map<string, SeriesPoint | undefined>> {
  // One index walk per series (the primary key is (series, block, ordinal)), newest first; the
  // partitions above the block are pruned.
  const rows = await historyRead(() =>
    db.unsafe(
      `select wanted.series, newest.point from unnest($1::text[]) as wanted(series)
       cross join lateral (
         select point from ${historyTables.seriesPoints}
         where series = wanted.series and block <= $2
         order by block desc, ordinal desc limit 1
       ) as newest`,
      [keys as string[], block],
    ),
  );
  return new Map(rows.map((row) => [row.series as string, parse(row.point as string)] as const));
}

/**
 * The block is older than what the stores serving the read hold: before the first block the
 * platform followed, or, without the history database, older than the newest points Redis keeps.
 */
export function blockBeforeHistory(block: number, held: string) {
  return notFound("BLOCK_BEFORE_HISTORY", `block ${block} is older than ${held}`, { blockNumber: block });
}
