/**
 * A history window's PostgreSQL work (data-query `seriesWindow.ts` pointsBefore): the newest point
 * before each of a window's instants, for a series with a point at every block, read from
 * history.series_points on a real PostgreSQL 15 (startHistoryServer, the schema migrated, the
 * data_query role reading) with an empty Redis in front, so every instant is answered there.
 *
 * - **baseline**: the query data-query ran before migration 4 (kept here as text): per instant, a
 *   binary search over blocks, each probe the newest point at or below a block, its time parsed
 *   from the point's JSON;
 * - **measured**: data-query's own pointsBefore, one probe of series_points_by_time per instant and
 *   partition.
 *
 * Seeded: BENCH_WINDOW_POINTS (216,000: 30 days at 12 s) points of ~600 bytes over two partitions of
 * the default size (216,000 blocks), like the network stats series. Asked: a 30-day window at 1h
 * (720 instants) and a 1-day window at 1h (24), rounds alternating the two queries.
 *
 *   pnpm --silent build && (cd bench && pnpm series-window)
 */
import { join } from "node:path";
import { type HistoryDb, historyTables } from "@platform/history";
import { startHistoryServer } from "@platform/history/testing";
import { createRedis } from "@platform/store";
import { startRedis, tempDir, waitFor } from "@platform/testing";
import { pointsBefore } from "../../services/data-query/src/shared/seriesWindow.js";
import { table } from "../src/load.js";

const POINTS = Number(process.env.BENCH_WINDOW_POINTS ?? 216_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const FIRST_BLOCK = 100_000;
const T0 = Date.UTC(2026, 10, 1);
const SERIES = "rm:{data}:market:stats:points";
const HOUR = 3_600_000;
const timeOf = (block: number) => T0 + (block - FIRST_BLOCK) * 12_000;

/** The pre-migration-4 query: a binary search over blocks per instant (the baseline). */
async function binarySearch(history: HistoryDb, instants: readonly number[], top: number) {
  const table = historyTables.seriesPoints;
  const newestAtOrBelow = (block: string) =>
    `select point from ${table} where series = $1 and block <= ${block} order by block desc, ordinal desc limit 1`;
  return history.unsafe(
    `with recursive search(i, target, lo, hi) as (
       select i::int, target, -1::bigint, $2::bigint from unnest($3::bigint[]) with ordinality as u(target, i)
       union all
       select s.i, s.target,
         case when coalesce(p.t < s.target, true) then (s.lo + s.hi + 1) / 2 else s.lo end,
         case when coalesce(p.t < s.target, true) then s.hi else (s.lo + s.hi + 1) / 2 - 1 end
       from search s
       left join lateral (
         select (point::json->>'t')::bigint as t from (${newestAtOrBelow("(s.lo + s.hi + 1) / 2")}) newest
       ) p on true
       where s.lo < s.hi
     )
     select s.i, q.point from search s
     left join lateral (${newestAtOrBelow("s.lo")}) q on true
     where s.lo = s.hi`,
    [SERIES, top, instants.map((instant) => Math.floor(instant))] as never,
  );
}

async function seed(owner: HistoryDb): Promise<void> {
  const last = FIRST_BLOCK + POINTS - 1;
  await owner.unsafe(`select history.ensure_block_partitions('series_points', ${FIRST_BLOCK}, ${last})`);
  const payload = "A".repeat(540);
  for (let from = FIRST_BLOCK; from <= last; from += 20_000) {
    const blocks = Array.from({ length: Math.min(20_000, last - from + 1) }, (_, index) => from + index);
    await owner.unsafe(
      `insert into ${historyTables.seriesPoints} (series, block, ordinal, point)
       select $1, b, b * 100000, json_build_object('o', b * 100000, 'b', b, 'h', '0x' || lpad(to_hex(b), 64, '0'),
         't', $2::bigint + (b - $3) * 12000, 'p', $4::text)::text
       from unnest($5::bigint[]) as b`,
      [SERIES, T0, FIRST_BLOCK, payload, blocks] as never,
    );
  }
  await owner.unsafe(`analyze ${historyTables.seriesPoints}`);
}

const dir = tempDir("bench-series-window");
const [redisServer, historyServer] = await Promise.all([
  startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") }),
  startHistoryServer({ dataDir: join(dir.path, "postgres") }),
]);
const redis = createRedis({ url: redisServer.url, connectionName: "bench-series-window" });
await waitFor(async () => redis.status === "ready", { what: "redis" });
const owner = historyServer.connect("postgres", 1);
const reader = historyServer.connect("data_query", 1);
const seeding = Date.now();
await seed(owner);
console.log(`seeded ${POINTS} points in ${((Date.now() - seeding) / 1000).toFixed(0)} s`);

const top = FIRST_BLOCK + POINTS - 1;
const end = timeOf(top);
const windowOf = (hours: number) => Array.from({ length: hours }, (_, index) => end - (hours - 1 - index) * HOUR);
const windows = { "30 days, 1h": windowOf(720), "1 day, 1h": windowOf(24) };
const source = { redis, history: reader, key: SERIES, maxBlock: top };

// Both must answer alike before either is timed.
for (const instants of Object.values(windows)) {
  const measured = (await pointsBefore(source, instants)).map((point) => point?.b);
  const rows = await binarySearch(reader, instants, top);
  const found = new Map(rows.map((row) => [Number(row.i), (JSON.parse(row.point as string) as { b: number }).b]));
  const baseline = instants.map((_instant, index) => found.get(index + 1));
  if (JSON.stringify(measured) !== JSON.stringify(baseline)) throw new Error("the two queries disagree");
}

const timings: Record<string, { baseline: number[]; measured: number[] }> = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, instants] of Object.entries(windows)) {
    const entry = timings[name] ?? { baseline: [], measured: [] };
    timings[name] = entry;
    const sides: ["baseline" | "measured", () => Promise<unknown>][] = [
      ["baseline", () => binarySearch(reader, instants, top)],
      ["measured", () => pointsBefore(source, instants)],
    ];
    for (const [side, run] of round % 2 === 0 ? sides : sides.reverse()) {
      const started = performance.now();
      await run();
      entry[side].push(performance.now() - started);
    }
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(
  table(
    Object.entries(timings).map(([name, entry]) => ({
      window: name,
      "baseline ms (median)": median(entry.baseline).toFixed(1),
      "measured ms (median)": median(entry.measured).toFixed(1),
      "measured ÷ baseline": (median(entry.measured) / median(entry.baseline)).toFixed(3),
    })),
  ),
);
const [plan] = await reader.unsafe(
  `explain (analyze, buffers, format json) select u.i, p.point from unnest($3::bigint[]) with ordinality as u(target, i)
   left join lateral (select point from ${historyTables.seriesPoints} where series = $1 and time_ms < u.target and block <= $2
     order by time_ms desc, block desc, ordinal desc limit 1) p on true`,
  [SERIES, top, windows["30 days, 1h"]] as never,
);
const summary = JSON.stringify(plan).match(/"Index Name":"[a-z0-9_]+"/g) ?? [];
console.log(`measured plan's indexes: ${[...new Set(summary)].join(", ")}`);
redis.disconnect();
await Promise.all([redisServer.stop(), historyServer.stop()]);
dir.remove();
