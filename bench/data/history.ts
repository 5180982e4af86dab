// bench/data/history.ts (issue 41, "Reads at a past block and 30-day history windows in a bench of
// their own"): what a read at a past block and a 30-day history window cost through the real gateway,
// as ratios to the same route at the head (and to a 1-day window) measured in the same run.
//
//   pnpm --silent build && (cd bench && pnpm data-history)
//
// One process, one stack (startBenchStack: the whole local stack from dist, the native network with
// 12 s blocks, PostgreSQL as the history store), an unlimited-tier key and its token (token check and
// rate-limit script on every request). The gateway runs with KEPT_ANSWERS_MAX_BYTES=1, so it keeps
// no answer and every request reaches data-query over gRPC: a single URL loaded over and over would
// otherwise be served from the gateway's memory and measure that (bench/data/README.md).
//
// 1. Past blocks. BENCH_HISTORY_BUILD_BLOCKS (120) native blocks are built at once, so the chain's
//    early blocks are older than the read models' Redis windows (network stats, emissions, subnet
//    settings and pools keep their newest 64 points, metagraphs 8, holder sets 4: libs/read-models)
//    and data-query reads them from PostgreSQL (shared/seriesAt.ts: Redis when it holds a point at
//    or below the block, else one query to history.series_points). Every latest route that takes
//    `block_number` is loaded at four URLs: the head (no block_number), `finalized`, a block 4 below
//    the head (`hot`: in every 64-point window) and the block BENCH_HISTORY_COLD_DEPTH (100) below
//    the head (`cold`: in none of them, so PostgreSQL). Ratios: each ÷ the head, per round.
// 2. 30-day windows. The chain's block timer is then held (no new block, so the projector writes
//    nothing more to these series) and 30 days of Finney blocks (216,000 at 12 s) are seeded
//    directly, shaped exactly as the projector writes them (services/projector shared/
//    seriesHistory.ts): one point per block, blocks 1 to 216,000, the newest at the time of the
//    seed, for the network stats series and the first seeded subnet's emission and settings series,
//    each point the series' newest live point with its block, hash, time and its payload's ChainRef
//    (and the stats' finalized head and running counts) rewritten; every point in
//    history.series_points (one transaction per series, the projector's role, partitions ensured as
//    it does), the newest 64 in Redis as the projector trims them; the subnet's pool series gets the
//    same newest 64 (subnets/history takes its head from it). The pool and TAO/USD price histories
//    are bucket reads from Redis (1 h buckets kept 400 days, 4 h and 1 d for ever): their 1h, 4h and
//    1d bucket zsets get 30 days of buckets before the live ones, copies of the newest live bucket.
//    Each history route is loaded with a 1-day window at 1h, a 30-day window at 1h (720 points, one
//    page: limit=2000) and at 1d (30 points), beside its latest route. Ratios: ÷ the 1-day window,
//    and the 1-day window ÷ the latest route.
//
// Each URL is loaded for BENCH_SECONDS (3) at each of BENCH_CONNECTIONS (32) with autocannon, in
// BENCH_ROUNDS (2) rounds whose order rotates; a route's URLs are checked to answer 200 first. Prints
// req/s, p50 and p99 per URL and round, and the ratios; writes everything to
// bench/results/data-history-<time>.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { connectHistory, historyTables, partitionKeeper } from "@platform/history";
import { repoRoot } from "@platform/local-stack";
import type { ChainRef } from "@platform/proto/common/v1/common";
import {
  EmissionSnapshot,
  NetworkStatsSnapshot,
  PoolSnapshot,
  SubnetSnapshot,
} from "@platform/proto/events/v1/chain_network";
import {
  BUCKET_SECONDS,
  type BucketAggregate,
  type BucketName,
  marketKeys,
  ORDINAL_SPAN,
  type SeriesPoint,
  subnetsKeys,
} from "@platform/read-models";
import { createRedis } from "@platform/store";
import { rpcRequest } from "@platform/testing";
import { type LoadResult, load, table } from "../src/load.js";
import { authorization, buildNativeBlocks, createDataKey, startBenchStack } from "./stackSetup.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "32").split(",").map(Number);
const BUILD_BLOCKS = Number(process.env.BENCH_HISTORY_BUILD_BLOCKS ?? 120);
const COLD_DEPTH = Number(process.env.BENCH_HISTORY_COLD_DEPTH ?? 100);
const HOT_DEPTH = 4;
const BLOCK_MS = 12_000;
const DAYS = Number(process.env.BENCH_HISTORY_DAYS ?? 30);
/** 30 days of Finney blocks at 12 s: 216,000. */
const SEEDED_BLOCKS = (DAYS * 86_400_000) / BLOCK_MS;
/** What the projector keeps of these series in Redis (libs/read-models market.ts, subnets.ts). */
const REDIS_WINDOW = 64;
const DAY_MS = 86_400_000;

interface Variant {
  label: string;
  path: string;
}
interface Measured {
  route: string;
  label: string;
  path: string;
  connections: number;
  round: number;
  result: LoadResult;
}

const startedAt = Date.now();
const loadAtStart = loadavg();
const bench = await startBenchStack("bench-data-history", {
  nativeBlockTimeMs: BLOCK_MS,
  priceIntervalMs: 30_000,
  serviceEnv: { gateway: { KEPT_ANSWERS_MAX_BYTES: "1" } },
});
const { stack, gatewayUrl } = bench;
const substrate = stack.descriptor.substrate!;
const redis = createRedis({ url: bench.redisUrl, connectionName: "bench-data-history", commandTimeoutMs: 30_000 });
const measured: Measured[] = [];
const notes: string[] = [];

try {
  const key = await createDataKey(stack, "bench-data-history");
  const headers = await authorization(gatewayUrl, key);
  process.stdout.write(`building ${BUILD_BLOCKS} native blocks at once (the past the block reads go to)…\n`);
  await buildNativeBlocks(substrate.httpUrl, BUILD_BLOCKS);
  const chainHeadNumber = Number.parseInt(
    (await rpcRequest<{ number: string }>(substrate.httpUrl, "chain_getHeader")).number,
    16,
  );
  const head = await waitStatsHead(chainHeadNumber, headers);
  const netuid = substrate.netuids[0]!;
  const alice = substrate.demoAccounts.find((account) => account.name === "Alice")!.ss58;
  const hot = head - HOT_DEPTH;
  const cold = head - COLD_DEPTH;
  process.stdout.write(`head ${head}; hot block ${hot}, cold block ${cold}; subnet ${netuid}\n`);

  // 1. Reads at a past block.
  const latest: Array<{ route: string; path: (block?: string) => string }> = [
    { route: "balance/latest", path: (block) => withBlock(`/data/v1/accounts/${alice}/balance/latest`, block) },
    { route: "network/stats/latest", path: (block) => withBlock("/data/v1/network/stats/latest", block) },
    { route: "subnet-pools/latest", path: (block) => withBlock("/data/v1/subnet-pools/latest", block) },
    { route: "subnet-emissions/latest", path: (block) => withBlock("/data/v1/subnet-emissions/latest", block) },
    { route: "subnets/latest", path: (block) => withBlock("/data/v1/subnets/latest", block) },
    {
      route: `subnets/${netuid}/validators/latest`,
      path: (block) => withBlock(`/data/v1/subnets/${netuid}/validators/latest`, block),
    },
    {
      route: `subnets/${netuid}/holders/top`,
      path: (block) => withBlock(`/data/v1/subnets/${netuid}/holders/top`, block),
    },
  ];
  for (const route of latest) {
    const variants = await answering(
      route.route,
      [
        { label: "head", path: route.path() },
        { label: "finalized", path: route.path("finalized") },
        { label: `hot (${hot})`, path: route.path(String(hot)) },
        { label: `cold (${cold})`, path: route.path(String(cold)) },
      ],
      headers,
    );
    await measureRoute(route.route, variants, headers);
  }

  // 2. 30-day windows (a failure there still leaves part 1's figures reported).
  await historyWindows(netuid, key).catch((error: unknown) => {
    notes.push(`30-day windows failed: ${error instanceof Error ? error.stack : String(error)}`);
  });
  report();
} finally {
  await redis.quit().catch(() => redis.disconnect());
  await bench.stop();
}

async function historyWindows(netuid: number, key: Awaited<ReturnType<typeof createDataKey>>): Promise<void> {
  process.stdout.write("holding the block timer; seeding 30 days of history…\n");
  await rpcRequest(substrate.httpUrl, "dev_pauseBlockTimer", []);
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const seededHeadMs = await seedHistory(netuid);
  const headers = await authorization(gatewayUrl, key);
  const end = new Date(Math.ceil((seededHeadMs + 1) / 3_600_000) * 3_600_000);
  const window = (days: number, interval: string, limit?: number) =>
    `start=${new Date(end.getTime() - days * DAY_MS).toISOString()}&end=${end.toISOString()}&interval=${interval}${limit === undefined ? "" : `&limit=${limit}`}`;
  const histories: Array<{ route: string; latest: string; history: string }> = [
    {
      route: "network/stats/history",
      latest: "/data/v1/network/stats/latest",
      history: "/data/v1/network/stats/history?",
    },
    {
      route: "subnet-emissions/history",
      latest: "/data/v1/subnet-emissions/latest",
      history: `/data/v1/subnet-emissions/history?netuid=${netuid}&`,
    },
    {
      route: "subnets/history",
      latest: "/data/v1/subnets/latest",
      history: `/data/v1/subnets/history?netuid=${netuid}&`,
    },
    {
      route: "subnet-pools/history",
      latest: `/data/v1/subnet-pools/latest?netuid=${netuid}`,
      history: `/data/v1/subnet-pools/history?netuid=${netuid}&`,
    },
    { route: "coin/price/history", latest: "/data/v1/coin/price/latest", history: "/data/v1/coin/price/history?" },
  ];
  for (const route of histories) {
    const variants = await answering(
      route.route,
      [
        { label: "latest", path: route.latest },
        { label: "1 day, 1h", path: `${route.history}${window(1, "1h")}` },
        { label: `${DAYS} days, 1h`, path: `${route.history}${window(DAYS, "1h", 2_000)}` },
        { label: `${DAYS} days, 1d`, path: `${route.history}${window(DAYS, "1d")}` },
      ],
      headers,
    );
    await measureRoute(route.route, variants, headers);
  }
}

function withBlock(path: string, block: string | undefined): string {
  if (block === undefined) return path;
  return `${path}${path.includes("?") ? "&" : "?"}block_number=${block}`;
}

/** The newest block of the network stats series once it has caught up with the chain's head. */
async function waitStatsHead(chainHeadNumber: number, headers: Record<string, string>): Promise<number> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const response = await fetch(`${gatewayUrl}/data/v1/network/stats/latest`, { headers });
    if (response.status === 200) {
      const body = (await response.json()) as { as_of?: { block_number?: number | string } };
      const block = Number(body.as_of?.block_number);
      if (block >= chainHeadNumber) return block;
    } else await response.body?.cancel();
    if (Date.now() > deadline) throw new Error(`network stats did not reach block ${chainHeadNumber}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** The variants that answer 200 (the others are left out, and said so: a figure of an error is no figure). */
async function answering(route: string, variants: Variant[], headers: Record<string, string>): Promise<Variant[]> {
  const kept: Variant[] = [];
  for (const variant of variants) {
    const response = await fetch(`${gatewayUrl}${variant.path}`, { headers });
    const text = await response.text();
    if (response.status === 200) kept.push(variant);
    else {
      const note = `${route} ${variant.label}: ${response.status} ${text.slice(0, 200)} (left out)`;
      notes.push(note);
      process.stdout.write(`${note}\n`);
    }
  }
  return kept;
}

/** Warms each variant up for 1 s, then per connection count ROUNDS rounds, the order rotating by one each round. */
async function measureRoute(route: string, variants: Variant[], headers: Record<string, string>): Promise<void> {
  if (variants.length === 0) return;
  process.stdout.write(`measuring ${route}: ${variants.map((variant) => variant.label).join(", ")}…\n`);
  for (const variant of variants)
    await load({ url: `${gatewayUrl}${variant.path}`, headers, connections: 32, durationSeconds: 1 });
  for (const connections of CONNECTIONS)
    for (let round = 0; round < ROUNDS; round += 1)
      for (let index = 0; index < variants.length; index += 1) {
        const variant = variants[(index + round) % variants.length]!;
        const result = await load({
          url: `${gatewayUrl}${variant.path}`,
          headers,
          connections,
          durationSeconds: SECONDS,
        });
        measured.push({ route, label: variant.label, path: variant.path, connections, round, result });
      }
}

type Codec<T> = { decode(bytes: Uint8Array): T; encode(message: T): { finish(): Uint8Array } };
function hashOf(block: number): string {
  return `0x${block.toString(16).padStart(64, "0")}`;
}

/**
 * One point per block for blocks 1..SEEDED_BLOCKS, the newest at `headMs`, from the series' newest
 * live point: its payload with the ChainRef (and `adjust`) rewritten per block.
 */
function seriesPoints<T extends { ref?: ChainRef | undefined }>(
  template: SeriesPoint,
  codec: Codec<T>,
  headMs: number,
  from: number,
  adjust?: (message: T, block: number) => void,
): SeriesPoint[] {
  const message = codec.decode(Buffer.from(template.p, "base64"));
  const ref = message.ref!;
  const points: SeriesPoint[] = [];
  for (let block = from; block <= SEEDED_BLOCKS; block += 1) {
    const t = headMs - (SEEDED_BLOCKS - block) * BLOCK_MS;
    message.ref = {
      ...ref,
      blockNumber: String(block),
      blockHash: hashOf(block),
      parentHash: hashOf(block - 1),
      blockTimestamp: new Date(t).toISOString(),
    };
    adjust?.(message, block);
    const point: SeriesPoint = {
      o: block * ORDINAL_SPAN + (template.o % ORDINAL_SPAN),
      b: block,
      h: hashOf(block),
      t,
      p: Buffer.from(codec.encode(message).finish()).toString("base64"),
    };
    if (template.m !== undefined) point.m = template.m;
    if (template.k !== undefined) {
      point.k = { ph: hashOf(block - 1), x: template.k.x, r: template.k.r };
      point.n = { s: 1, x: block * template.k.x, r: block * template.k.r };
    }
    points.push(point);
  }
  return points;
}

/** Replaces a series whole in both stores: every point in PostgreSQL, the newest 64 in Redis. */
async function replaceSeries(key: string, points: readonly SeriesPoint[], replacePostgres: boolean): Promise<void> {
  const db = connectHistory({
    url: bench.historyWriterEnv.POSTGRES_URL!,
    username: bench.historyWriterEnv.POSTGRES_USERNAME,
    password: bench.historyWriterEnv.POSTGRES_PASSWORD,
    max: 1,
    applicationName: "bench-data-history-seed",
  });
  try {
    const partitions = partitionKeeper();
    await db.begin(async (tx) => {
      if (replacePostgres) await tx.unsafe(`delete from ${historyTables.seriesPoints} where series = $1`, [key]);
      else
        await tx.unsafe(`delete from ${historyTables.seriesPoints} where series = $1 and block >= $2`, [
          key,
          points[0]!.b,
        ]);
      await partitions.ensure(tx, "series_points", BigInt(points[0]!.b), BigInt(points.at(-1)!.b));
      for (let at = 0; at < points.length; at += 20_000) {
        const chunk = points.slice(at, at + 20_000);
        await tx.unsafe(
          `insert into ${historyTables.seriesPoints} (series, block, ordinal, point)
           select $1, * from unnest($2::bigint[], $3::bigint[], $4::text[])`,
          [
            key,
            chunk.map((point) => String(point.b)),
            chunk.map((point) => String(point.o)),
            chunk.map((point) => JSON.stringify(point)),
          ] as never,
        );
      }
    });
  } finally {
    await db.end({ timeout: 5 });
  }
  const newest = points.slice(-REDIS_WINDOW);
  const multi = redis.multi().del(key);
  for (const point of newest) multi.zadd(key, point.o, JSON.stringify(point));
  await multi.exec();
}

async function newestPoint(key: string): Promise<SeriesPoint> {
  const [text] = await redis.zrange(key, "-1", "-1");
  if (text === undefined) throw new Error(`${key} holds no point`);
  return JSON.parse(text) as SeriesPoint;
}

/** 30 days before the oldest bucket of each of the key's zsets, copies of its newest bucket. */
async function extendBuckets(keyOf: (interval: BucketName) => string, headMs: number): Promise<number> {
  let added = 0;
  for (const interval of ["1h", "4h", "1d"] as const) {
    const key = keyOf(interval);
    const [oldestText] = await redis.zrange(key, "0", "0");
    const [newestText] = await redis.zrange(key, "-1", "-1");
    if (oldestText === undefined || newestText === undefined) continue;
    const oldest = JSON.parse(oldestText) as BucketAggregate;
    const newest = JSON.parse(newestText) as BucketAggregate;
    const size = BUCKET_SECONDS[interval];
    const multi = redis.multi();
    for (let start = oldest.s - size; start * 1_000 >= headMs - DAYS * DAY_MS - size * 1_000; start -= size) {
      multi.zadd(key, start, JSON.stringify({ ...newest, s: start }));
      added += 1;
    }
    await multi.exec();
  }
  return added;
}

/** Seeds the 30 days (see the header); returns the time of the seeded head. */
async function seedHistory(netuid: number): Promise<number> {
  const headMs = Date.now() - 1_000;
  const started = performance.now();
  const stats = seriesPoints(
    await newestPoint(marketKeys.statsPoints),
    NetworkStatsSnapshot,
    headMs,
    1,
    (message, block) => {
      message.finalizedBlockNumber = String(Math.max(1, block - 2));
    },
  );
  await replaceSeries(marketKeys.statsPoints, stats, true);
  const emissions = seriesPoints(await newestPoint(marketKeys.emissionPoints(netuid)), EmissionSnapshot, headMs, 1);
  await replaceSeries(marketKeys.emissionPoints(netuid), emissions, true);
  const subnet = seriesPoints(await newestPoint(subnetsKeys.subnetPoints(netuid)), SubnetSnapshot, headMs, 1);
  await replaceSeries(subnetsKeys.subnetPoints(netuid), subnet, true);
  // subnets/history takes its head from the subnet's pool series: its newest 64 points at the seeded head.
  const pool = seriesPoints(
    await newestPoint(subnetsKeys.poolPoints(netuid)),
    PoolSnapshot,
    headMs,
    SEEDED_BLOCKS - REDIS_WINDOW + 1,
  );
  await replaceSeries(subnetsKeys.poolPoints(netuid), pool, false);
  const buckets =
    (await extendBuckets((interval) => marketKeys.poolBuckets(netuid, interval), headMs)) +
    (await extendBuckets((interval) => marketKeys.priceBuckets("TAO", "usd", interval), headMs));
  const note = `seeded ${SEEDED_BLOCKS} points (blocks 1..${SEEDED_BLOCKS}, ${DAYS} days at 12 s, newest at ${new Date(headMs).toISOString()}) for each of ${marketKeys.statsPoints}, ${marketKeys.emissionPoints(netuid)}, ${subnetsKeys.subnetPoints(netuid)} (history.series_points; newest ${REDIS_WINDOW} in Redis), ${REDIS_WINDOW} for ${subnetsKeys.poolPoints(netuid)}, and ${buckets} pool and TAO/USD buckets (1h, 4h, 1d) in Redis, in ${((performance.now() - started) / 1_000).toFixed(0)} s`;
  notes.push(note);
  process.stdout.write(`${note}\n`);
  return headMs;
}

function report(): void {
  const rows: Array<Record<string, string | number>> = [];
  const summary: Array<Record<string, string | number>> = [];
  const routes = [...new Set(measured.map((entry) => entry.route))];
  for (const route of routes)
    for (const connections of CONNECTIONS) {
      const entries = measured.filter((entry) => entry.route === route && entry.connections === connections);
      const labels = [...new Set(entries.map((entry) => entry.label))];
      const reference = labels.find((label) => label === "head" || label === "1 day, 1h") ?? labels[0]!;
      const of = (label: string) => entries.filter((entry) => entry.label === label);
      for (const label of labels) {
        const runs = of(label);
        const ratios = runs.map((entry) => {
          const base = of(reference).find((other) => other.round === entry.round)!.result;
          return {
            rps: entry.result.requestsPerSecond / base.requestsPerSecond,
            p99: entry.result.p99Ms / base.p99Ms,
          };
        });
        const list = (values: number[], digits = 0) => values.map((value) => value.toFixed(digits)).join(" · ");
        rows.push({
          route,
          connections,
          read: label,
          "req/s": list(runs.map((entry) => entry.result.requestsPerSecond)),
          "p50 ms": list(
            runs.map((entry) => entry.result.p50Ms),
            1,
          ),
          "p99 ms": list(
            runs.map((entry) => entry.result.p99Ms),
            1,
          ),
          failures: runs.reduce((total, entry) => total + entry.result.failures, 0),
          reference,
          "req/s ÷ reference":
            label === reference
              ? ""
              : list(
                  ratios.map((ratio) => ratio.rps),
                  2,
                ),
          "p99 ÷ reference":
            label === reference
              ? ""
              : list(
                  ratios.map((ratio) => ratio.p99),
                  2,
                ),
        });
        if (label !== reference)
          summary.push({
            route,
            connections,
            read: `${label} ÷ ${reference}`,
            "req/s ratio (per round)": list(
              ratios.map((ratio) => ratio.rps),
              2,
            ),
            "p99 ratio (per round)": list(
              ratios.map((ratio) => ratio.p99),
              2,
            ),
          });
      }
    }
  const loadAtEnd = loadavg();
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(" ");
  process.stdout.write(
    `\nbench/data history — node ${process.version}, ${cpus().length} CPUs, ${ROUNDS} rotating rounds of ${SECONDS} s per URL and connection count, through the gateway (kept answers off); load average ${load(loadAtStart)} at start, ${load(loadAtEnd)} at end\n` +
      `${notes.join("\n")}\n\n${table(rows)}\n\nratios (per round, the reference measured in the same round):\n${table(summary)}\n`,
  );
  const dir = join(repoRoot, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `data-history-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ node: process.version, cpus: cpus().length, seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, loadAverage: { start: loadAtStart, end: loadAtEnd }, runSeconds: (Date.now() - startedAt) / 1_000, notes, measured, summary }, null, 2)}\n`,
  );
  process.stdout.write(`figures written to ${file}; whole run ${((Date.now() - startedAt) / 1_000).toFixed(0)} s\n`);
}
