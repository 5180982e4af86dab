/**
 * The accounts projection at mainnet size, at full speed, with the history database (issue 41,
 * point 7): what committing to PostgreSQL as well as Redis costs per block and in catch-up, and
 * what each store grows by per block.
 *
 *   pnpm --silent build && (cd bench && pnpm accounts-soak)
 *   BENCH_SOAK_BLOCKS=7200 (cd bench && pnpm accounts-soak)      # the Finney day
 *
 * **The records are generated, not read from a chain** (finneyStream.ts): a seeded Finney-shaped
 * state (100,006 accounts, 34,032 stakers, 111,255 positions over 129 netuids) and, per block,
 * AccountActivity records (20-60), on epoch blocks (129 consecutive of every 361, Tempo 360) an
 * AccountBalanceSnapshot per staker of the subnet that stepped, and a BlockSeen per partition, built
 * as the native ingestor builds them and encoded with @platform/proto's real types. The other kinds
 * chain.network.v1 carries (pool, emission, metagraph snapshots...) are left out: the accounts
 * projection skips them by their event-type header, but in a real topic they share its batches.
 *
 * The consumer is played as readModels.ts (bench/native/scale) plays it: each record to the
 * partition kafkajs' default partitioner gives its key (TOPICS.chainNetwork.partitions), offsets
 * consecutive per partition, what was fetched handed over partition by partition in batches of up
 * to 1 MiB, to `accountsProjection(...).handleBatch` in this process. Before the stream, the
 * ingestor's first full snapshot (a balance snapshot of every staker) is applied off the clock.
 *
 * Two sides, the same stream, one after the other on fresh servers (a real Redis; a real
 * PostgreSQL 15 from `startHistoryServer({ durable: true })`, so every commit is fsynced as in
 * production, reached through the projector role's pool of 8):
 * - **baseline**: the projection on Redis alone (no history: Redis keeps every point and transaction);
 * - **history**: the projection with the history database (PostgreSQL commits, then Redis).
 * Each side runs two passes: **incremental** (one block per fetch, as at the chain's head: a block's
 * commit ms is from handing its records over to its last batch committed) and **catch-up** (the
 * whole stream as a backlog: fetches of up to 10 MiB; blocks / the time spent applying). Generating
 * the records is off the clock.
 *
 * BENCH_SOAK_BLOCKS (720), BENCH_SOAK_WINDOW (720; when the run has no more blocks than that, half
 * the run, so that a slope after it is measured), BENCH_SOAK_SEED (41), BENCH_SOAK_FIRST_BLOCK
 * (4,999,850 = 361 x 13,850: the stream starts at the top of a tempo cycle), BENCH_SOAK_ACTIVITY_MIN
 * / _MAX (20 / 60), BENCH_SOAK_PASSES (incremental,catch-up), BENCH_SOAK_SIDES (baseline,history; the per-block rows of the table need both). Writes
 * bench/results/accounts-soak-<time>.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { SupervisedProjection } from "@platform/bus";
import type { HistoryDb } from "@platform/history";
import { type HistoryServer, startHistoryServer } from "@platform/history/testing";
import { createLogger } from "@platform/log";
import { TOPICS } from "@platform/proto/topics";
import { accountsKeys } from "@platform/read-models";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { accountsProjection } from "../../services/projector/src/accounts/projection.js";
import { table } from "../src/load.js";
import { FINNEY_SIZES, type FinneyStream, finneyStream, type StreamBlock } from "./finneyStream.js";
import {
  commitFloorMs,
  commitOf,
  FETCH_MAX_BYTES,
  type FeedTiming,
  feeder as feederOf,
  type PostgresFigures,
  postgresFigures,
  quantile,
  redisFamilies,
  timedBegin,
  usedMemory,
} from "./soakRig.js";

const BLOCKS = Number(process.env.BENCH_SOAK_BLOCKS ?? 720);
const WINDOW_SETTING = Number(process.env.BENCH_SOAK_WINDOW ?? 720);
const WINDOW = BLOCKS > WINDOW_SETTING ? WINDOW_SETTING : Math.floor(BLOCKS / 2);
const SEED = Number(process.env.BENCH_SOAK_SEED ?? 41);
const FIRST_BLOCK = Number(process.env.BENCH_SOAK_FIRST_BLOCK ?? 4_999_850);
const ACTIVITY_MIN = Number(process.env.BENCH_SOAK_ACTIVITY_MIN ?? 20);
const ACTIVITY_MAX = Number(process.env.BENCH_SOAK_ACTIVITY_MAX ?? 60);
const PASSES = (process.env.BENCH_SOAK_PASSES ?? "incremental,catch-up").split(",");
const SIDES = (process.env.BENCH_SOAK_SIDES ?? "baseline,history").split(",");
/** Redis used_memory is sampled every so many blocks (the JSON's series). */
const SAMPLE_EVERY = 60;
const PARTITIONS = TOPICS.chainNetwork.partitions;

type SideName = "baseline" | "history";

interface BlockTiming {
  number: number;
  epoch: boolean;
  ms: number;
  postgresMs: number;
  batches: number;
}

interface IncrementalFigures {
  side: SideName;
  blocks: BlockTiming[];
  redisUsedMemory: { first: number; afterWindow: number; end: number };
  redisSeries: Array<{ block: number; bytes: number }>;
  redisFamilies: Array<{ family: string; keys: number; bytes: number }>;
  pointsInRedis: PointsInRedis;
  postgres?: { first: PostgresFigures; end: PostgresFigures; walBytes: number; commitFloorP50Ms: number };
}

interface CatchUpFigures {
  side: SideName;
  blocks: number;
  ms: number;
  postgresMs: number;
  fetches: number;
  batches: number;
}

/** A side's servers and its projection, fresh for each pass. */
interface Rig {
  side: SideName;
  projection: SupervisedProjection;
  /** A connection of its own for INFO and scans. */
  redis: Redis;
  history: HistoryServer | undefined;
  /** Superuser pool: CHECKPOINT and sizes. */
  admin: HistoryDb | undefined;
  /** Time inside the PostgreSQL store's transactions (its `begin`), summed. */
  postgresClock: { ms: number };
  /** Warnings and errors the projection logged (an undecodable record is one). */
  logged: string[];
  stop(): Promise<void>;
}

async function startRig(side: SideName, dir: string): Promise<Rig> {
  const folder = join(dir, `${side}-${Date.now()}`);
  const [redisServer, history]: [RunningRedis, HistoryServer | undefined] = await Promise.all([
    startRedis({ dir: join(folder, "redis"), logFile: join(folder, "redis.log") }),
    side === "history" ? startHistoryServer({ dataDir: join(folder, "pg"), durable: true }) : undefined,
  ]);
  const connection = (name: string) =>
    createRedis({ url: redisServer.url, connectionName: `bench-soak-${name}`, commandTimeoutMs: 300_000 });
  const redis = connection("stats");
  const projectionRedis = connection("accounts");
  await waitFor(async () => redis.status === "ready" && projectionRedis.status === "ready", {
    what: "the bench's Redis connections",
  });
  const logged: string[] = [];
  const log = createLogger({
    service: "bench-soak",
    level: "warn",
    destination: new Writable({
      write: (chunk, _encoding, callback) => {
        if (logged.length < 20) logged.push(String(chunk).slice(0, 400));
        callback();
      },
    }),
  });
  const postgresClock = { ms: 0 };
  const projection = accountsProjection({
    redis: projectionRedis,
    history: history === undefined ? undefined : timedBegin(history.connect("projector", 8), postgresClock),
    log,
  });
  return {
    side,
    projection,
    redis,
    history,
    admin: history?.connect("postgres", 1),
    postgresClock,
    logged,
    async stop() {
      redis.disconnect();
      projectionRedis.disconnect();
      await history?.stop();
      await redisServer.stop();
    },
  };
}

/** Hands fetched blocks to the rig's one projection (soakRig.ts). */
function feeder(rig: Rig): (blocks: readonly StreamBlock[]) => Promise<FeedTiming> {
  return feederOf([{ name: "accounts", projection: rig.projection, postgresClock: rig.postgresClock }]);
}

const newStream = (): FinneyStream =>
  finneyStream({ seed: SEED, firstBlock: FIRST_BLOCK, activityMin: ACTIVITY_MIN, activityMax: ACTIVITY_MAX });

interface PointsInRedis {
  accounts: number;
  points: number;
  /** Accounts by the points they hold (index = points; the last entry counts that many or more). */
  accountsByPoints: number[];
}

/** Accounts with points in Redis, the points they hold, and how many hold 1, 2, ... of them. */
async function pointsInRedis(redis: Redis): Promise<PointsInRedis> {
  const figures: PointsInRedis = { accounts: 0, points: 0, accountsByPoints: new Array<number>(9).fill(0) };
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", accountsKeys.points("*"), "COUNT", 2_000);
    cursor = next;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.zcard(key);
    for (const [, count] of (await pipeline.exec()) ?? []) {
      figures.accounts += 1;
      figures.points += Number(count);
      figures.accountsByPoints[Math.min(8, Number(count))]! += 1;
    }
  } while (cursor !== "0");
  return figures;
}

async function checkHead(rig: Rig, lastBlock: number): Promise<void> {
  const head = await rig.redis.hget(accountsKeys.head, "blockNumber");
  if (head !== String(lastBlock)) throw new Error(`${rig.side}: the accounts head stands at ${head}, not ${lastBlock}`);
  if (rig.logged.length > 0) throw new Error(`${rig.side}: the projection logged:\n${rig.logged.join("\n")}`);
}

async function incrementalPass(side: SideName, dir: string): Promise<IncrementalFigures> {
  const stream = newStream();
  const rig = await startRig(side, dir);
  try {
    const feed = feeder(rig);
    await feed([stream.snapshot()]);
    const first = await usedMemory(rig.redis);
    const postgresFirst = rig.admin === undefined ? undefined : await postgresFigures(rig.admin);
    const blocks: BlockTiming[] = [];
    const redisSeries = [{ block: 0, bytes: first }];
    let afterWindow = first;
    let last = FIRST_BLOCK;
    for (let index = 1; index <= BLOCKS; index++) {
      const block = stream.next();
      last = block.number;
      const { ms, postgresMs, batches } = await feed([block]);
      blocks.push({ number: block.number, epoch: block.epoch !== undefined, ms, postgresMs, batches });
      if (index % SAMPLE_EVERY === 0 || index === WINDOW || index === BLOCKS) {
        const bytes = await usedMemory(rig.redis);
        redisSeries.push({ block: index, bytes });
        if (index === WINDOW) afterWindow = bytes;
      }
      if (index % 100 === 0) console.error(`  ${side} incremental: ${index}/${BLOCKS} blocks`);
    }
    await checkHead(rig, last);
    const end = redisSeries.at(-1)!.bytes;
    const figures: IncrementalFigures = {
      side,
      blocks,
      redisUsedMemory: { first, afterWindow, end },
      redisSeries,
      redisFamilies: await redisFamilies(rig.redis),
      pointsInRedis: await pointsInRedis(rig.redis),
    };
    if (rig.admin !== undefined && postgresFirst !== undefined) {
      const postgresEnd = await postgresFigures(rig.admin);
      const [wal] =
        await rig.admin`select pg_wal_lsn_diff(${postgresEnd.walLsn}, ${postgresFirst.walLsn})::bigint::text as bytes`;
      figures.postgres = {
        first: postgresFirst,
        end: postgresEnd,
        walBytes: Number(wal!.bytes),
        commitFloorP50Ms: await commitFloorMs(rig.admin),
      };
    }
    return figures;
  } finally {
    await rig.stop();
  }
}

async function catchUpPass(side: SideName, dir: string): Promise<CatchUpFigures> {
  const stream = newStream();
  const rig = await startRig(side, dir);
  try {
    const feed = feeder(rig);
    await feed([stream.snapshot()]);
    const figures: CatchUpFigures = { side, blocks: 0, ms: 0, postgresMs: 0, fetches: 0, batches: 0 };
    let pending: StreamBlock | undefined;
    let last = FIRST_BLOCK;
    while (figures.blocks < BLOCKS) {
      // One fetch: whole blocks up to FETCH_MAX_BYTES (at least one), generated off the clock.
      const fetch: StreamBlock[] = [];
      let bytes = 0;
      while (figures.blocks + fetch.length < BLOCKS) {
        const block = pending ?? stream.next();
        pending = undefined;
        if (fetch.length > 0 && bytes + block.bytes > FETCH_MAX_BYTES) {
          pending = block;
          break;
        }
        fetch.push(block);
        bytes += block.bytes;
      }
      const { ms, postgresMs, batches } = await feed(fetch);
      figures.blocks += fetch.length;
      figures.ms += ms;
      figures.postgresMs += postgresMs;
      figures.fetches += 1;
      figures.batches += batches;
      last = fetch.at(-1)!.number;
    }
    await checkHead(rig, last);
    return figures;
  } finally {
    await rig.stop();
  }
}

function timingsOf(figures: IncrementalFigures) {
  const of = (epoch: boolean) => figures.blocks.filter((block) => block.epoch === epoch);
  const stats = (blocks: BlockTiming[]) => ({
    blocks: blocks.length,
    p50Ms: quantile(
      blocks.map((block) => block.ms),
      0.5,
    ),
    p95Ms: quantile(
      blocks.map((block) => block.ms),
      0.95,
    ),
    maxMs: Math.max(...blocks.map((block) => block.ms)),
    postgresP50Ms: quantile(
      blocks.map((block) => block.postgresMs),
      0.5,
    ),
    batchesPerBlock: blocks.reduce((sum, block) => sum + block.batches, 0) / Math.max(1, blocks.length),
  });
  const { first, afterWindow, end } = figures.redisUsedMemory;
  return {
    incremental: stats(of(false)),
    epoch: stats(of(true)),
    all: stats(figures.blocks),
    slopeAfterWindow: BLOCKS > WINDOW ? (end - afterWindow) / (BLOCKS - WINDOW) : Number.NaN,
    slopeToWindow: (afterWindow - first) / WINDOW,
  };
}

/** Per block, from the first figures (after the full snapshot) to the end. */
function postgresPerBlock(figures: IncrementalFigures) {
  const postgres = figures.postgres;
  if (postgres === undefined) return undefined;
  const tables: Record<string, { bytesPerBlock: number; rowsPerBlock: number; bytesPerRow: number }> = {};
  for (const [name, end] of Object.entries(postgres.end.tables)) {
    const first = postgres.first.tables[name] ?? { bytes: 0, rows: 0 };
    const rows = end.rows - first.rows;
    tables[name] = {
      bytesPerBlock: (end.bytes - first.bytes) / BLOCKS,
      rowsPerBlock: rows / BLOCKS,
      bytesPerRow: rows > 0 ? (end.bytes - first.bytes) / rows : Number.NaN,
    };
  }
  return {
    databaseBytesPerBlock: (postgres.end.databaseBytes - postgres.first.databaseBytes) / BLOCKS,
    walBytesPerBlock: postgres.walBytes / BLOCKS,
    commitFloorP50Ms: postgres.commitFloorP50Ms,
    tables,
  };
}

/** The stream's own figures (a pass of the generator alone, no servers). */
function streamFigures() {
  const stream = newStream();
  let records = 0;
  let bytes = 0;
  let activities = 0;
  let snapshots = 0;
  let epochBlocks = 0;
  for (let index = 0; index < BLOCKS; index++) {
    const block = stream.next();
    records += block.records.length;
    bytes += block.bytes;
    activities += block.activities;
    snapshots += block.snapshots;
    if (block.epoch !== undefined) epochBlocks += 1;
  }
  const perNetuid = stream.stakersPerNetuid;
  return {
    accounts: stream.accounts,
    stakers: stream.stakers,
    positions: stream.positions,
    stakersPerSubnet: {
      root: perNetuid[0]!,
      subnetsMean: perNetuid.slice(1).reduce((sum, count) => sum + count, 0) / FINNEY_SIZES.subnets,
      subnetsMin: Math.min(...perNetuid.slice(1)),
      subnetsMax: Math.max(...perNetuid.slice(1)),
    },
    blocks: BLOCKS,
    epochBlocks,
    records,
    activityRecords: activities,
    snapshotRecords: snapshots,
    blockSeenRecords: BLOCKS * PARTITIONS,
    bytes,
    bytesPerBlock: bytes / BLOCKS,
  };
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : "–");
const ratio = (value: number, base: number) => (Number.isFinite(value / base) ? `x${(value / base).toFixed(2)}` : "–");
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

function report(
  incremental: Partial<Record<SideName, IncrementalFigures>>,
  catchUp: Partial<Record<SideName, CatchUpFigures>>,
) {
  const base = incremental.baseline && timingsOf(incremental.baseline);
  const hist = incremental.history && timingsOf(incremental.history);
  const rows: Array<Record<string, string>> = [];
  const row = (measure: string, baseline: string, history: string, against: string) =>
    rows.push({
      measure,
      "baseline (Redis only)": baseline,
      "with history (PostgreSQL + Redis)": history,
      ratio: against,
    });
  if (base && hist) {
    for (const [label, key] of [
      ["incremental (no epoch)", "incremental"],
      ["epoch blocks", "epoch"],
    ] as const) {
      const [b, h] = [base[key], hist[key]];
      row(`${label}: blocks`, String(b.blocks), String(h.blocks), "");
      row(`${label}: commit p50 ms`, ms(b.p50Ms), ms(h.p50Ms), ratio(h.p50Ms, b.p50Ms));
      row(`${label}: commit p95 ms`, ms(b.p95Ms), ms(h.p95Ms), ratio(h.p95Ms, b.p95Ms));
      row(`${label}: max ms`, ms(b.maxMs), ms(h.maxMs), ratio(h.maxMs, b.maxMs));
      row(`${label}: of it in PostgreSQL, p50 ms`, "–", ms(h.postgresP50Ms), "");
    }
  }
  const [cb, ch] = [catchUp.baseline, catchUp.history];
  const rate = (figures: CatchUpFigures | undefined) =>
    figures === undefined ? Number.NaN : figures.blocks / (figures.ms / 1_000);
  if (cb || ch)
    row(
      "catch-up blocks/s (whole stream as a backlog)",
      ms(rate(cb)),
      `${ms(rate(ch))}${ch ? ` (PostgreSQL ${((ch.postgresMs / ch.ms) * 100).toFixed(0)} %)` : ""}`,
      ratio(rate(ch), rate(cb)),
    );
  for (const [label, pick] of [
    ["Redis used_memory: start (after the full snapshot)", (f: IncrementalFigures) => mb(f.redisUsedMemory.first)],
    [`Redis used_memory: after ${WINDOW} blocks`, (f: IncrementalFigures) => mb(f.redisUsedMemory.afterWindow)],
    ["Redis used_memory: end", (f: IncrementalFigures) => mb(f.redisUsedMemory.end)],
  ] as const)
    row(
      label,
      incremental.baseline ? pick(incremental.baseline) : "–",
      incremental.history ? pick(incremental.history) : "–",
      "",
    );
  if (base && hist) {
    row(
      "Redis bytes/block up to the window",
      ms(base.slopeToWindow),
      ms(hist.slopeToWindow),
      ratio(hist.slopeToWindow, base.slopeToWindow),
    );
    row(
      "Redis bytes/block after the window",
      ms(base.slopeAfterWindow),
      ms(hist.slopeAfterWindow),
      ratio(hist.slopeAfterWindow, base.slopeAfterWindow),
    );
  }
  const postgres = incremental.history && postgresPerBlock(incremental.history);
  if (postgres) {
    row("PostgreSQL bytes/block (pg_database_size after CHECKPOINT)", "–", ms(postgres.databaseBytesPerBlock), "");
    row("PostgreSQL WAL bytes/block", "–", ms(postgres.walBytesPerBlock), "");
    row("PostgreSQL commit floor (one-row transaction, fsync), p50 ms", "–", ms(postgres.commitFloorP50Ms), "");
    for (const [name, figures] of Object.entries(postgres.tables))
      row(
        `  ${name}: bytes/block (rows/block, bytes/row)`,
        "–",
        `${ms(figures.bytesPerBlock)} (${figures.rowsPerBlock.toFixed(1)}, ${ms(figures.bytesPerRow)})`,
        "",
      );
  }
  return { rows, base, hist, postgres, rate: { baseline: rate(cb), history: rate(ch) } };
}

async function main(): Promise<void> {
  const started = new Date();
  const loadAtStart = loadavg();
  const dir = tempDir("accounts-soak");
  const stream = streamFigures();
  console.log(
    `accounts soak: ${BLOCKS} blocks from ${FIRST_BLOCK} (${stream.epochBlocks} epoch blocks), ${stream.records.toLocaleString("en")} records ` +
      `(${stream.activityRecords.toLocaleString("en")} activities, ${stream.snapshotRecords.toLocaleString("en")} balance snapshots), ` +
      `${mb(stream.bytes)}; ${stream.accounts.toLocaleString("en")} accounts, ${stream.positions.toLocaleString("en")} positions; ` +
      `window ${WINDOW}; load average ${loadAtStart.map((load) => load.toFixed(2)).join(" ")} (a shared 2-core machine)\n`,
  );
  const incremental: Partial<Record<SideName, IncrementalFigures>> = {};
  const catchUp: Partial<Record<SideName, CatchUpFigures>> = {};
  try {
    for (const side of ["baseline", "history"] as const)
      if (PASSES.includes("incremental") && SIDES.includes(side))
        incremental[side] = await incrementalPass(side, dir.path);
    for (const side of ["baseline", "history"] as const)
      if (PASSES.includes("catch-up") && SIDES.includes(side)) catchUp[side] = await catchUpPass(side, dir.path);
  } finally {
    dir.remove();
  }
  const { rows, base, hist, postgres, rate } = report(incremental, catchUp);
  console.log(table(rows));
  const families = (side: SideName) => incremental[side]?.redisFamilies ?? [];
  for (const side of ["baseline", "history"] as const) {
    const figures = incremental[side];
    if (figures === undefined) continue;
    console.log(
      `\n${side}: Redis at the end, ${figures.pointsInRedis.points.toLocaleString("en")} balance points over ${figures.pointsInRedis.accounts.toLocaleString("en")} accounts (accounts holding 1..8+ points: ${figures.pointsInRedis.accountsByPoints.slice(1).join(" / ")}); largest key families:`,
    );
    console.log(
      table(families(side).map((family) => ({ family: family.family, keys: family.keys, size: mb(family.bytes) }))),
    );
  }
  const summary = {
    blocks: BLOCKS,
    epochBlocks: stream.epochBlocks,
    windowBlocks: WINDOW,
    incrementalP50Ms: hist?.incremental.p50Ms,
    incrementalP95Ms: hist?.incremental.p95Ms,
    epochBlockP50Ms: hist?.epoch.p50Ms,
    epochBlockP95Ms: hist?.epoch.p95Ms,
    baselineIncrementalP50Ms: base?.incremental.p50Ms,
    baselineIncrementalP95Ms: base?.incremental.p95Ms,
    baselineEpochBlockP50Ms: base?.epoch.p50Ms,
    baselineEpochBlockP95Ms: base?.epoch.p95Ms,
    incrementalP95Ratio: hist && base ? hist.incremental.p95Ms / base.incremental.p95Ms : undefined,
    epochBlockP95Ratio: hist && base ? hist.epoch.p95Ms / base.epoch.p95Ms : undefined,
    catchUpBlocksPerSecond: rate.history,
    baselineCatchUpBlocksPerSecond: rate.baseline,
    catchUpRatio: rate.history / rate.baseline,
    redisUsedMemoryBytes: incremental.history?.redisUsedMemory,
    baselineRedisUsedMemoryBytes: incremental.baseline?.redisUsedMemory,
    redisSlopeBytesPerBlockAfterWindow: hist?.slopeAfterWindow,
    baselineRedisSlopeBytesPerBlockAfterWindow: base?.slopeAfterWindow,
    postgresBytesPerBlock: postgres?.databaseBytesPerBlock,
    postgresWalBytesPerBlock: postgres?.walBytesPerBlock,
    postgresCommitFloorP50Ms: postgres?.commitFloorP50Ms,
    postgresTables: postgres?.tables,
    streamBytesPerBlock: stream.bytesPerBlock,
  };
  const results = new URL("../results/", import.meta.url);
  mkdirSync(results, { recursive: true });
  const file = new URL(`accounts-soak-${started.toISOString().replace(/[:.]/g, "-")}.json`, results);
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        bench: "bench/store/accountsHistorySoak.ts",
        commit: commitOf(),
        started: started.toISOString(),
        finished: new Date().toISOString(),
        machine: {
          loadAverageAtStart: loadAtStart,
          loadAverageAtEnd: loadavg(),
          note: "2 cores shared with other work",
        },
        settings: { BLOCKS, WINDOW, SEED, FIRST_BLOCK, ACTIVITY_MIN, ACTIVITY_MAX, PASSES, PARTITIONS },
        stream,
        summary,
        timings: { baseline: base, history: hist },
        catchUp,
        redis: Object.fromEntries(
          Object.entries(incremental).map(([side, figures]) => [
            side,
            {
              used: figures.redisUsedMemory,
              series: figures.redisSeries,
              families: figures.redisFamilies,
              points: figures.pointsInRedis,
            },
          ]),
        ),
        postgres: incremental.history?.postgres,
        blocks: Object.fromEntries(Object.entries(incremental).map(([side, figures]) => [side, figures.blocks])),
      },
      null,
      1,
    )}\n`,
  );
  console.log(
    `\nload average at the end ${loadavg()
      .map((load) => load.toFixed(2))
      .join(" ")}; figures in ${file.pathname}`,
  );
}

await main();
