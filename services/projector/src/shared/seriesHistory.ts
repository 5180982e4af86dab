import { type HistoryTransaction, historyTables, type PartitionKeeper } from "@platform/history";
import { type BucketName, ORDINAL_SPAN, type SeriesPoint } from "@platform/read-models";
import { bucketsFrom, foldSeries, lowestOrdinal } from "./series.js";
import type { SeriesState } from "./seriesState.js";
import { type LoadedSeries, type PendingSeries, parsePoint } from "./seriesStore.js";

/**
 * The PostgreSQL copy of the market and subnets series (history.series_points): every point a
 * fold makes, none trimmed, so a series' state at any block followed is its newest row at or below
 * that block. Written in the projection's commit transaction (libs/projection postgresStore), by
 * the same fold as the Redis copy (series.ts) over this copy's own tail.
 */

/** The lowest and highest of the blocks, or undefined without any. */
export function blockSpan(blocks: readonly number[]): { first: number; last: number } | undefined {
  if (blocks.length === 0) return undefined;
  let first = blocks[0]!;
  let last = first;
  for (const block of blocks) {
    if (block < first) first = block;
    if (block > last) last = block;
  }
  return { first, last };
}

/** The block a series row belongs to (its partition): the ordinal's block. */
const blockOf = (ordinal: number): number => Math.floor(ordinal / ORDINAL_SPAN);

/** Reads the projection's state from PostgreSQL inside the commit's transaction. */
export function postgresSeriesState(tx: HistoryTransaction, projection: string): SeriesState {
  const state = historyTables.projectionState;
  return {
    store: "postgres",
    loadSeries: (pending) => loadSeriesRows(tx, pending),
    async members(key) {
      const rows = await tx.unsafe(`select field from ${state} where projection = $1 and key = $2`, [projection, key]);
      return rows.map((row) => row.field as string);
    },
    async membersAmong(key, candidates) {
      if (candidates.length === 0) return new Set();
      const rows = await tx.unsafe(
        `select field from ${state} where projection = $1 and key = $2 and field = any($3::text[])`,
        [projection, key, candidates as string[]] as never,
      );
      return new Set(rows.map((row) => row.field as string));
    },
    async hashes(keys) {
      if (keys.length === 0) return [];
      const rows = await tx.unsafe(
        `select key, field, value from ${state} where projection = $1 and key = any($2::text[])`,
        [projection, keys as string[]] as never,
      );
      const byKey = new Map(keys.map((key) => [key, new Map<string, string>()] as const));
      for (const row of rows) byKey.get(row.key as string)?.set(row.field as string, row.value as string);
      return keys.map((key) => byKey.get(key)!);
    },
  };
}

/**
 * Each series' newest point below the batch's lowest ordinal and every point from it on: two
 * statements for the whole batch, whatever the number of series (a block touches hundreds).
 */
async function loadSeriesRows(tx: HistoryTransaction, pending: readonly PendingSeries[]): Promise<LoadedSeries[]> {
  const withOps = pending.filter((series) => series.ops.length > 0);
  if (withOps.length === 0) return [];
  const lowests = withOps.map((series) => lowestOrdinal(series.ops));
  const params = [
    withOps.map((series) => series.layout.points),
    lowests.map((lowest) => String(blockOf(lowest))),
    lowests.map(String),
  ] as never;
  const table = historyTables.seriesPoints;
  const bases = await tx.unsafe(
    `select s.series, b.point from unnest($1::text[], $2::bigint[], $3::bigint[]) as s(series, block, ordinal)
     cross join lateral (select point from ${table} p where p.series = s.series and (p.block, p.ordinal) < (s.block, s.ordinal)
       order by p.block desc, p.ordinal desc limit 1) b`,
    params,
  );
  const tails = await tx.unsafe(
    `select p.series, p.point from unnest($1::text[], $2::bigint[], $3::bigint[]) as s(series, block, ordinal)
     join ${table} p on p.series = s.series and (p.block, p.ordinal) >= (s.block, s.ordinal)
     order by p.series, p.block, p.ordinal`,
    params,
  );
  const baseOf = new Map(bases.map((row) => [row.series as string, parsePoint(row.point as string)] as const));
  const tailOf = new Map<string, SeriesPoint[]>();
  for (const row of tails) {
    const series = row.series as string;
    const points = tailOf.get(series) ?? [];
    points.push(parsePoint(row.point as string));
    tailOf.set(series, points);
  }
  return withOps.map((series, index) => ({
    ...series,
    lowest: lowests[index]!,
    loaded: { base: baseOf.get(series.layout.points), tail: tailOf.get(series.layout.points) ?? [] },
  }));
}

/**
 * Folds the loaded series and writes what changed: each changed series' rows from its lowest
 * ordinal on are replaced by the folded points (one delete and one insert for the whole batch).
 */
export async function writeSeriesHistory(
  tx: HistoryTransaction,
  partitions: PartitionKeeper,
  loaded: readonly LoadedSeries[],
): Promise<void> {
  const replaced: LoadedSeries[] = [];
  const rows: { series: string; block: string; ordinal: string; point: string }[] = [];
  const buckets: { series: string; bucket: string; from: string; starts: string[]; aggregates: string[] }[] = [];
  for (const series of loaded) {
    // The same bucket aggregates as the Redis copy: a point reads alike from either store.
    const names = Object.keys(series.layout.buckets) as BucketName[];
    const folded = foldSeries(series.loaded, series.ops, names);
    if (folded.changedFrom === undefined) continue;
    replaced.push(series);
    for (const point of folded.points)
      rows.push({
        series: series.layout.points,
        block: String(point.b),
        ordinal: String(point.o),
        point: JSON.stringify(point),
      });
    for (const name of names) {
      const { from, aggregates } = bucketsFrom(series.loaded.base, folded.points, name, folded.changedFrom);
      buckets.push({
        series: series.layout.points,
        bucket: name,
        from: String(from),
        starts: aggregates.map((aggregate) => String(aggregate.s)),
        aggregates: aggregates.map((aggregate) => JSON.stringify(aggregate)),
      });
    }
  }
  if (replaced.length === 0) return;
  await replacePoints(tx, partitions, replaced, rows);
  await replaceBuckets(tx, buckets);
}

async function replacePoints(
  tx: HistoryTransaction,
  partitions: PartitionKeeper,
  replaced: readonly LoadedSeries[],
  rows: readonly { series: string; block: string; ordinal: string; point: string }[],
): Promise<void> {
  const table = historyTables.seriesPoints;
  await tx.unsafe(
    `delete from ${table} p using unnest($1::text[], $2::bigint[], $3::bigint[]) as s(series, block, ordinal)
     where p.series = s.series and (p.block, p.ordinal) >= (s.block, s.ordinal)`,
    [
      replaced.map((series) => series.layout.points),
      replaced.map((series) => String(blockOf(series.lowest))),
      replaced.map((series) => String(series.lowest)),
    ] as never,
  );
  if (rows.length === 0) return;
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const row of rows) {
    first = Math.min(first, Number(row.block));
    last = Math.max(last, Number(row.block));
  }
  await partitions.ensure(tx, "series_points", BigInt(first), BigInt(last));
  await tx.unsafe(
    `insert into ${table} (series, block, ordinal, point)
     select * from unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[])`,
    [
      rows.map((row) => row.series),
      rows.map((row) => row.block),
      rows.map((row) => row.ordinal),
      rows.map((row) => row.point),
    ] as never,
  );
}

/** Every bucket from the first one a fold changed on is replaced by the aggregates that stand (series.ts bucketsFrom). */
async function replaceBuckets(
  tx: HistoryTransaction,
  buckets: readonly { series: string; bucket: string; from: string; starts: string[]; aggregates: string[] }[],
): Promise<void> {
  if (buckets.length === 0) return;
  const table = historyTables.seriesBuckets;
  await tx.unsafe(
    `delete from ${table} b using unnest($1::text[], $2::text[], $3::bigint[]) as d(series, bucket, start)
     where b.series = d.series and b.bucket = d.bucket and b.start >= d.start`,
    [
      buckets.map((entry) => entry.series),
      buckets.map((entry) => entry.bucket),
      buckets.map((entry) => entry.from),
    ] as never,
  );
  const flat = buckets.flatMap((entry) =>
    entry.starts.map((start, index) => [entry.series, entry.bucket, start, entry.aggregates[index]!] as const),
  );
  if (flat.length === 0) return;
  await tx.unsafe(
    `insert into ${table} (series, bucket, start, aggregate)
     select * from unnest($1::text[], $2::text[], $3::bigint[], $4::text[])`,
    [
      flat.map((row) => row[0]),
      flat.map((row) => row[1]),
      flat.map((row) => row[2]),
      flat.map((row) => row[3]),
    ] as never,
  );
}

/**
 * The subnet removals of a batch, in order, as queueRemovals keeps them in Redis (a hash netuid ->
 * `<block>:<hash>`): a removal sets it, the undoing of that same removal takes it off.
 */
export async function writeRemovalsHistory(
  tx: HistoryTransaction,
  projection: string,
  key: string,
  removals: readonly { kind: string; netuid: number; block: number; hash: string }[],
): Promise<void> {
  const state = historyTables.projectionState;
  for (const removal of removals) {
    const mark = `${removal.block}:${removal.hash.toLowerCase()}`;
    if (removal.kind === "subnetRemoved")
      await tx.unsafe(
        `insert into ${state} (projection, key, field, value) values ($1, $2, $3, $4)
         on conflict (projection, key, field) do update set value = excluded.value`,
        [projection, key, String(removal.netuid), mark],
      );
    else
      await tx.unsafe(`delete from ${state} where projection = $1 and key = $2 and field = $3 and value = $4`, [
        projection,
        key,
        String(removal.netuid),
        mark,
      ]);
  }
}

/** Adds members to one of the projection's sets. */
export async function addStateMembers(
  tx: HistoryTransaction,
  projection: string,
  key: string,
  members: readonly string[],
): Promise<void> {
  if (members.length === 0) return;
  await tx.unsafe(
    `insert into ${historyTables.projectionState} (projection, key, field, value)
     select $1, $2, field, '' from unnest($3::text[]) as m(field) on conflict do nothing`,
    [projection, key, members as string[]] as never,
  );
}

/** Replaces one of the projection's hashes whole (an empty map deletes it). */
export async function replaceStateHash(
  tx: HistoryTransaction,
  projection: string,
  key: string,
  fields: ReadonlyMap<string, string>,
): Promise<void> {
  const state = historyTables.projectionState;
  await tx.unsafe(`delete from ${state} where projection = $1 and key = $2`, [projection, key]);
  if (fields.size === 0) return;
  await tx.unsafe(
    `insert into ${state} (projection, key, field, value) select $1, $2, * from unnest($3::text[], $4::text[])`,
    [projection, key, [...fields.keys()], [...fields.values()]] as never,
  );
}
