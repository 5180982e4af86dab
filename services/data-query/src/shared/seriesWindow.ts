import { type HistoryDb, historyTables } from "@platform/history";
import { historySeriesKey, ORDINAL_SPAN, type SeriesPoint } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readModel } from "./asOf.js";
import { historyRead } from "./historyRead.js";

/**
 * A series' state at given instants, read across its two stores: Redis keeps each series' newest
 * points (a contiguous tail, the hot window), history.series_points in PostgreSQL every point
 * (libs/history migrations step 2, keyed by the Redis points key). An instant after the oldest
 * point Redis holds is answered from Redis; an older one from PostgreSQL, or not at all without a
 * history database. PostgreSQL is never asked about the hot window: data-query may read a replica
 * that lags the primary, while Redis is what `as_of` names.
 */
export interface SeriesSource {
  redis: Redis;
  history: HistoryDb | undefined;
  /** The Redis points key, which is also the series' name in PostgreSQL (read-models historySeriesKey says where not). */
  key: string;
  /** Points above this block are past the answer's as_of and never shown; none: every point counts. */
  maxBlock?: number | undefined;
}

const REDIS_CHUNK = 256;
const parsePoint = (text: string) => JSON.parse(text) as SeriesPoint;

/** The series' first point: the oldest in PostgreSQL when there is one, else the oldest Redis holds. */
export async function firstPoint(source: SeriesSource): Promise<SeriesPoint | undefined> {
  if (source.history !== undefined) {
    const [row] = await historyRead(() =>
      source.history!.unsafe(
        `select point from ${historyTables.seriesPoints} where series = $1 order by block, ordinal limit 1`,
        [historySeriesKey(source.key)],
      ),
    );
    if (row !== undefined) return parsePoint(row.point as string);
  }
  const [oldest] = await readModel(() => source.redis.zrange(source.key, "0", "0"));
  return oldest === undefined ? undefined : parsePoint(oldest);
}

/**
 * For each instant (ms), the series' newest point whose block time is before it, at or below
 * maxBlock; undefined where there is none. Block times never go back along a chain, so "newest by
 * time" is "newest by block" and both stores are searched by block.
 */
export async function pointsBefore(
  source: SeriesSource,
  instantsMs: readonly number[],
): Promise<(SeriesPoint | undefined)[]> {
  if (instantsMs.length === 0) return [];
  const [oldestText] = await readModel(() => source.redis.zrange(source.key, "0", "0"));
  // A hot window wholly past maxBlock holds none of the answers: they are all in PostgreSQL.
  const oldest = oldestText === undefined ? undefined : parsePoint(oldestText);
  if (oldest !== undefined && oldest.b > (source.maxBlock ?? Number.POSITIVE_INFINITY))
    return coldOnly(source, instantsMs);
  const hot = instantsMs.filter((instant) => oldest !== undefined && oldest.t < instant);
  const cold = instantsMs.filter((instant) => oldest === undefined || oldest.t >= instant);
  const [hotPoints, coldPoints] = await Promise.all([
    hot.length === 0 ? [] : hotPointsBefore(source, Math.min(...hot)),
    cold.length === 0 || source.history === undefined
      ? []
      : coldPointsBefore(source, source.history, cold, oldest === undefined ? topOf(source) : oldest.b - 1),
  ]);
  return instantsMs.map((instant) =>
    oldest !== undefined && oldest.t < instant
      ? hotPoints.find((point) => point.t < instant)
      : coldPoints[cold.indexOf(instant)],
  );
}

async function coldOnly(source: SeriesSource, instantsMs: readonly number[]) {
  if (source.history === undefined) return instantsMs.map(() => undefined);
  return coldPointsBefore(source, source.history, instantsMs, topOf(source));
}

/** The highest block a search may land on. */
const topOf = (source: SeriesSource) => source.maxBlock ?? Number.MAX_SAFE_INTEGER;

/**
 * The hot window's points at or below maxBlock, newest first, read back from the newest until one
 * is older than `earliestMs` (that one included): what every hot instant's answer is among.
 */
async function hotPointsBefore(source: SeriesSource, earliestMs: number): Promise<SeriesPoint[]> {
  const points: SeriesPoint[] = [];
  for (let offset = 0; ; offset += REDIS_CHUNK) {
    const chunk = await readModel(() =>
      source.redis.zrevrangebyscore(
        source.key,
        source.maxBlock === undefined ? "+inf" : `(${(source.maxBlock + 1) * ORDINAL_SPAN}`,
        "-inf",
        "LIMIT",
        offset,
        REDIS_CHUNK,
      ),
    );
    const parsed = chunk.map(parsePoint);
    points.push(...parsed);
    if (parsed.length < REDIS_CHUNK || parsed.at(-1)!.t < earliestMs) return points;
  }
}

/**
 * One query for every instant: per instant, the newest point whose block time is before it, found
 * by one probe of series_points_by_time (series, time_ms, block, ordinal) in each partition at or
 * below the top block. So an instant costs a few index reads whatever the window's length, and the
 * rows between instants are never read (a 30-day window at 12 s blocks is 216,000 of them). Not for
 * a series kept as deltas (holder sets): none is read as a window.
 */
async function coldPointsBefore(
  source: SeriesSource,
  history: HistoryDb,
  instantsMs: readonly number[],
  topBlock: number,
): Promise<(SeriesPoint | undefined)[]> {
  const rows = await historyRead(() =>
    history.unsafe(
      `select u.i, p.point from unnest($3::bigint[]) with ordinality as u(target, i)
       left join lateral (
         select point from ${historyTables.seriesPoints}
         where series = $1 and time_ms < u.target and block <= $2
         order by time_ms desc, block desc, ordinal desc limit 1
       ) p on true`,
      [historySeriesKey(source.key), topBlock, instantsMs.map((instant) => Math.floor(instant))] as never,
    ),
  );
  const found = new Map(rows.map((row) => [Number(row.i), row.point as string | null]));
  return instantsMs.map((_instant, index) => {
    const text = found.get(index + 1);
    return text === undefined || text === null ? undefined : parsePoint(text);
  });
}
