import { TOPICS } from "@platform/proto/topics";
import { table } from "../src/load.js";
import type { StreamFigures } from "./finneySoakStream.js";
import { type PostgresFigures, quantile } from "./soakRig.js";

/* The Finney soak's settings, figures and what it prints and keeps (finneySoak.ts runs it). */

export const SETTINGS = (() => {
  const blocks = Number(process.env.BENCH_SOAK_BLOCKS ?? 720);
  const window = Number(process.env.BENCH_SOAK_WINDOW ?? 720);
  return {
    blocks,
    window: blocks > window ? window : Math.floor(blocks / 2),
    seed: Number(process.env.BENCH_SOAK_SEED ?? 41),
    firstBlock: Number(process.env.BENCH_SOAK_FIRST_BLOCK ?? 4_999_850),
    activityMin: Number(process.env.BENCH_SOAK_ACTIVITY_MIN ?? 20),
    activityMax: Number(process.env.BENCH_SOAK_ACTIVITY_MAX ?? 60),
    passes: (process.env.BENCH_SOAK_PASSES ?? "incremental,catch-up").split(","),
    sides: (process.env.BENCH_SOAK_SIDES ?? "baseline,history").split(","),
    partitions: TOPICS.chainNetwork.partitions,
    /** Redis used_memory is sampled every so many blocks (the JSON's series). */
    sampleEvery: 60,
  };
})();

export type SideName = "baseline" | "history";
export type RedisFamily = { family: string; keys: number; bytes: number };
export const PROJECTIONS = ["accounts", "market", "subnets"] as const;

export interface BlockTiming {
  number: number;
  epoch: boolean;
  ms: number;
  postgresMs: number;
  batches: number;
  byProjection: Record<string, { ms: number; postgresMs: number }>;
}

/** What the stores hold over a pass: Redis sampled every so many blocks, PostgreSQL before and after. */
export interface StoreFigures {
  redisUsedMemory: { first: number; afterWindow: number; end: number };
  redisSeries: Array<{ block: number; bytes: number }>;
  redisFamilies: RedisFamily[];
  /** Every key family (MEMORY USAGE summed) at the window's sample and at the end: where the growth after the window goes. */
  redisFamiliesGrowth?: { atWindow: RedisFamily[]; end: RedisFamily[]; blocks: number };
  postgres?: {
    first: PostgresFigures;
    end: PostgresFigures;
    walBytes: number;
  };
}

export interface IncrementalFigures extends StoreFigures {
  side: SideName;
  blocks: BlockTiming[];
}

export interface CatchUpFigures {
  side: SideName;
  blocks: number;
  epochBlocks: number;
  ms: number;
  postgresMs: number;
  fetches: number;
  byProjection: Record<string, { ms: number; postgresMs: number }>;
  /** The stores over the backlog, sampled between fetches (off the clock). */
  stores?: StoreFigures;
}

export interface SoakResults {
  incremental: Partial<Record<SideName, IncrementalFigures>>;
  catchUp: Partial<Record<SideName, CatchUpFigures>>;
  stream: StreamFigures;
}

const FINNEY_DAY_BLOCKS = 7_200;

function stats(blocks: readonly BlockTiming[], pick: (block: BlockTiming) => number) {
  const values = blocks.map(pick);
  return {
    blocks: values.length,
    p50Ms: quantile(values, 0.5),
    p95Ms: quantile(values, 0.95),
    maxMs: values.length === 0 ? Number.NaN : Math.max(...values),
  };
}

/** Per-block figures of a side's incremental pass: all blocks, epoch blocks, the others, and each projection's. */
function timingsOf(figures: IncrementalFigures) {
  const epoch = figures.blocks.filter((block) => block.epoch);
  const other = figures.blocks.filter((block) => !block.epoch);
  const projections = Object.fromEntries(
    PROJECTIONS.map((name) => {
      const own = (block: BlockTiming) => block.byProjection[name]?.ms ?? Number.NaN;
      const postgres = (block: BlockTiming) => block.byProjection[name]?.postgresMs ?? Number.NaN;
      return [
        name,
        {
          all: stats(figures.blocks, own),
          epoch: stats(epoch, own),
          other: stats(other, own),
          postgresAll: stats(figures.blocks, postgres),
          postgresEpoch: stats(epoch, postgres),
        },
      ];
    }),
  );
  return {
    all: stats(figures.blocks, (block) => block.ms),
    epoch: stats(epoch, (block) => block.ms),
    other: stats(other, (block) => block.ms),
    postgres: stats(figures.blocks, (block) => block.postgresMs),
    projections,
    ...redisSlopes(figures),
  };
}

/**
 * Redis' growth per block up to the window's end and after it, from the samples: the first sample
 * at or past the window (a catch-up samples between fetches, so it may land a few blocks past).
 */
function redisSlopes(figures: StoreFigures) {
  const { redisSeries } = figures;
  const first = redisSeries[0]!;
  const end = redisSeries.at(-1)!;
  const atWindow = redisSeries.find((sample) => sample.block >= SETTINGS.window);
  return {
    slopeAfterWindow:
      atWindow === undefined || end.block <= atWindow.block
        ? Number.NaN
        : (end.bytes - atWindow.bytes) / (end.block - atWindow.block),
    slopeToWindow: atWindow === undefined ? Number.NaN : (atWindow.bytes - first.bytes) / atWindow.block,
  };
}

/**
 * Where Redis grew after the window, by key family. The families keyed by account (`<pk>`: the
 * accounts' newest balance points) grow by one entry per account seen for the first time, which is
 * the state growing, not the chain's age: a generated day touches most of its 100,006 accounts
 * once, where Finney's activity comes back to the same ones.
 */
function familiesGrowth(growth: NonNullable<StoreFigures["redisFamiliesGrowth"]>) {
  const before = new Map(growth.atWindow.map((entry) => [entry.family, entry]));
  const byFamily = growth.end
    .map((entry) => ({
      family: entry.family,
      keys: entry.keys - (before.get(entry.family)?.keys ?? 0),
      bytesPerBlock: (entry.bytes - (before.get(entry.family)?.bytes ?? 0)) / growth.blocks,
    }))
    .filter((entry) => entry.bytesPerBlock !== 0 || entry.keys !== 0)
    .sort((left, right) => right.bytesPerBlock - left.bytesPerBlock);
  const accountFamilies = growth.end.filter((entry) => entry.family.includes("<pk>"));
  const accounts = Math.max(0, ...accountFamilies.map((entry) => entry.keys));
  const accountsFirstSeen = Math.max(
    0,
    ...byFamily.filter((entry) => entry.family.includes("<pk>")).map((entry) => entry.keys),
  );
  const accountBytes = accountFamilies.reduce((sum, entry) => sum + entry.bytes, 0);
  const bytesPerAccount = accounts === 0 ? 0 : accountBytes / accounts;
  const accountBytesPerBlock = byFamily
    .filter((entry) => entry.family.includes("<pk>"))
    .reduce((sum, entry) => sum + entry.bytesPerBlock, 0);
  return { byFamily: byFamily.slice(0, 16), accountsFirstSeen, bytesPerAccount, accountBytesPerBlock };
}

/** Per block, from the first figures (after the full snapshot) to the end. */
function postgresPerBlock(figures: StoreFigures | undefined) {
  const postgres = figures?.postgres;
  if (postgres === undefined) return undefined;
  const { blocks } = SETTINGS;
  const tables: Record<string, { bytesPerBlock: number; rowsPerBlock: number; bytesPerRow: number; share: number }> =
    {};
  const grown = postgres.end.databaseBytes - postgres.first.databaseBytes;
  for (const [name, end] of Object.entries(postgres.end.tables)) {
    const first = postgres.first.tables[name] ?? { bytes: 0, rows: 0 };
    const rows = end.rows - first.rows;
    tables[name] = {
      bytesPerBlock: (end.bytes - first.bytes) / blocks,
      rowsPerBlock: rows / blocks,
      bytesPerRow: rows > 0 ? (end.bytes - first.bytes) / rows : Number.NaN,
      share: (end.bytes - first.bytes) / grown,
    };
  }
  return {
    databaseBytes: { before: postgres.first.databaseBytes, after: postgres.end.databaseBytes },
    databaseBytesPerBlock: grown / blocks,
    walBytesPerBlock: postgres.walBytes / blocks,
    tables,
  };
}

const rate = (figures: CatchUpFigures | undefined) =>
  figures === undefined ? Number.NaN : figures.blocks / (figures.ms / 1_000);

export function summaryOf(results: SoakResults) {
  const { incremental, catchUp, stream } = results;
  const base = incremental.baseline && timingsOf(incremental.baseline);
  const hist = incremental.history && timingsOf(incremental.history);
  // The stores' figures come from the incremental pass, or from the catch-up when it ran alone (a
  // Finney day of blocks fed one at a time takes hours here; as a backlog, well under one).
  const stores = incremental.history ?? catchUp.history?.stores;
  const baselineStores = incremental.baseline ?? catchUp.baseline?.stores;
  const postgres = postgresPerBlock(stores);
  const projections = Object.fromEntries(
    PROJECTIONS.map((name) => {
      const [h, b] = [hist?.projections[name], base?.projections[name]];
      const [hc, bc] = [catchUp.history?.byProjection[name], catchUp.baseline?.byProjection[name]];
      return [
        name,
        {
          incrementalP50Ms: h?.all.p50Ms,
          incrementalP95Ms: h?.all.p95Ms,
          epochBlockP95Ms: h?.epoch.p95Ms,
          nonEpochBlockP95Ms: h?.other.p95Ms,
          postgresP50Ms: h?.postgresAll.p50Ms,
          postgresEpochBlockP95Ms: h?.postgresEpoch.p95Ms,
          baselineIncrementalP95Ms: b?.all.p95Ms,
          baselineEpochBlockP95Ms: b?.epoch.p95Ms,
          catchUpBlocksPerSecond: hc === undefined ? undefined : SETTINGS.blocks / (hc.ms / 1_000),
          catchUpPostgresShare: hc === undefined ? undefined : hc.postgresMs / hc.ms,
          baselineCatchUpBlocksPerSecond: bc === undefined ? undefined : SETTINGS.blocks / (bc.ms / 1_000),
        },
      ];
    }),
  );
  const slopes = stores === undefined ? undefined : redisSlopes(stores);
  const redisSlope = slopes?.slopeAfterWindow;
  const growth = stores?.redisFamiliesGrowth === undefined ? undefined : familiesGrowth(stores.redisFamiliesGrowth);
  return {
    blocks: SETTINGS.blocks,
    epochBlocks: stream.epochBlocks,
    windowBlocks: SETTINGS.window,
    /** Every block of the incremental pass, epoch blocks included (the per-block target). */
    incrementalP50Ms: hist?.all.p50Ms,
    incrementalP95Ms: hist?.all.p95Ms,
    incrementalMaxMs: hist?.all.maxMs,
    nonEpochBlockP95Ms: hist?.other.p95Ms,
    epochBlockP50Ms: hist?.epoch.p50Ms,
    epochBlockP95Ms: hist?.epoch.p95Ms,
    postgresP50MsPerBlock: hist?.postgres.p50Ms,
    baselineIncrementalP95Ms: base?.all.p95Ms,
    baselineNonEpochBlockP95Ms: base?.other.p95Ms,
    baselineEpochBlockP95Ms: base?.epoch.p95Ms,
    incrementalP95Ratio: hist && base ? hist.all.p95Ms / base.all.p95Ms : undefined,
    epochBlockP95Ratio: hist && base ? hist.epoch.p95Ms / base.epoch.p95Ms : undefined,
    catchUpBlocksPerSecond: rate(catchUp.history),
    catchUpEpochBlocks: catchUp.history?.epochBlocks,
    catchUpPostgresShare: catchUp.history ? catchUp.history.postgresMs / catchUp.history.ms : undefined,
    baselineCatchUpBlocksPerSecond: rate(catchUp.baseline),
    catchUpRatio: rate(catchUp.history) / rate(catchUp.baseline),
    storeFiguresFrom: incremental.history !== undefined ? "incremental" : stores === undefined ? undefined : "catch-up",
    redisUsedMemoryBytes: stores?.redisUsedMemory,
    baselineRedisUsedMemoryBytes: baselineStores?.redisUsedMemory,
    redisSlopeBytesPerBlockAfterWindow: redisSlope,
    redisSlopeBytesPerBlockToWindow: slopes?.slopeToWindow,
    /** After the window, each key family's growth a block (MEMORY USAGE), largest first. */
    redisGrowthAfterWindowByFamily: growth?.byFamily,
    /** Accounts seen for the first time after the window, and what each one's keys hold. */
    redisAccountsFirstSeenAfterWindow: growth?.accountsFirstSeen,
    redisBytesPerAccount: growth?.bytesPerAccount,
    /** The slope less the keys of accounts seen for the first time (their state, one entry per account ever seen). */
    redisSlopeBytesPerBlockAfterWindowBeyondNewAccounts:
      growth === undefined || redisSlope === undefined ? undefined : redisSlope - growth.accountBytesPerBlock,
    baselineRedisSlopeBytesPerBlockAfterWindow:
      baselineStores === undefined ? undefined : redisSlopes(baselineStores).slopeAfterWindow,
    postgresBytesPerBlock: postgres?.databaseBytesPerBlock,
    postgresDatabaseBytes: postgres?.databaseBytes,
    postgresBytesPerFinneyDay: postgres === undefined ? undefined : postgres.databaseBytesPerBlock * FINNEY_DAY_BLOCKS,
    postgresWalBytesPerBlock: postgres?.walBytesPerBlock,
    postgresTables: postgres?.tables,
    kafkaBytesPerBlock: stream.kafkaBytesPerBlock,
    kafkaBytesPerEpochBlock: stream.kafkaBytesPerEpochBlock,
    kafkaBytesPerOtherBlock: stream.kafkaBytesPerOtherBlock,
    kafkaBytesPerFinneyDay: stream.kafkaBytesPerFinneyDay,
    kafkaBytesPerBlockByEventType: Object.fromEntries(
      Object.entries(stream.byEventType).map(([type, figures]) => [type, figures.kafkaBytesPerBlock]),
    ),
    projections,
    targets: {
      perBlockP95Under1s: hist === undefined ? undefined : hist.all.p95Ms < 1_000,
      catchUpAtLeast5BlocksPerSecond: catchUp.history === undefined ? undefined : rate(catchUp.history) >= 5,
      redisAtMost1KBPerBlockAfterWindow:
        redisSlope === undefined || Number.isNaN(redisSlope) ? undefined : redisSlope <= 1_024,
      redisAtMost1KBPerBlockAfterWindowBeyondNewAccounts:
        growth === undefined || redisSlope === undefined || Number.isNaN(redisSlope)
          ? undefined
          : redisSlope - growth.accountBytesPerBlock <= 1_024,
    },
  };
}

const ms = (value: number | undefined) => (value !== undefined && Number.isFinite(value) ? value.toFixed(1) : "–");
const ratio = (value: number | undefined, base: number | undefined) =>
  value !== undefined && base !== undefined && Number.isFinite(value / base) ? `x${(value / base).toFixed(2)}` : "";
const mb = (bytes: number | undefined) => (bytes === undefined ? "–" : `${(bytes / 1e6).toFixed(2)} MB`);

/** The terminal's tables: per-block times by side and projection, the stores' growth, the topic's bytes. */
export function report(results: SoakResults): string {
  const summary = summaryOf(results);
  const base = results.incremental.baseline && timingsOf(results.incremental.baseline);
  const hist = results.incremental.history && timingsOf(results.incremental.history);
  const rows: Array<Record<string, string>> = [];
  const row = (measure: string, baseline: string, history: string, against = "") =>
    rows.push({
      measure,
      "baseline (Redis only)": baseline,
      "with history (PostgreSQL + Redis)": history,
      ratio: against,
    });
  for (const [label, key] of [
    ["every block", "all"],
    ["epoch blocks", "epoch"],
    ["other blocks", "other"],
  ] as const) {
    const [b, h] = [base?.[key], hist?.[key]];
    row(
      `${label} (${h?.blocks ?? b?.blocks ?? 0}): commit p50 ms`,
      ms(b?.p50Ms),
      ms(h?.p50Ms),
      ratio(h?.p50Ms, b?.p50Ms),
    );
    row(`${label}: commit p95 ms`, ms(b?.p95Ms), ms(h?.p95Ms), ratio(h?.p95Ms, b?.p95Ms));
  }
  for (const name of PROJECTIONS) {
    const [b, h] = [base?.projections[name], hist?.projections[name]];
    row(
      `  ${name}: p95 ms, every block / epoch`,
      `${ms(b?.all.p95Ms)} / ${ms(b?.epoch.p95Ms)}`,
      `${ms(h?.all.p95Ms)} / ${ms(h?.epoch.p95Ms)}`,
      ratio(h?.epoch.p95Ms, b?.epoch.p95Ms),
    );
    row(
      `  ${name}: of it in PostgreSQL, p50 / epoch p95 ms`,
      "–",
      `${ms(h?.postgresAll.p50Ms)} / ${ms(h?.postgresEpoch.p95Ms)}`,
    );
  }
  row(
    "catch-up blocks/s",
    ms(summary.baselineCatchUpBlocksPerSecond),
    ms(summary.catchUpBlocksPerSecond),
    ratio(summary.catchUpBlocksPerSecond, summary.baselineCatchUpBlocksPerSecond),
  );
  const used = (side: SideName, pick: "first" | "afterWindow" | "end") =>
    mb((results.incremental[side] ?? results.catchUp[side]?.stores)?.redisUsedMemory[pick]);
  row(
    "Redis used_memory: first / after the window / end",
    `${used("baseline", "first")} / ${used("baseline", "afterWindow")} / ${used("baseline", "end")}`,
    `${used("history", "first")} / ${used("history", "afterWindow")} / ${used("history", "end")}`,
  );
  row(
    "Redis bytes/block after the window",
    ms(base?.slopeAfterWindow),
    ms(hist?.slopeAfterWindow ?? summary.redisSlopeBytesPerBlockAfterWindow),
    ratio(hist?.slopeAfterWindow, base?.slopeAfterWindow),
  );
  row(
    `  beyond the ${summary.redisAccountsFirstSeenAfterWindow ?? "–"} accounts first seen after it (${ms(summary.redisBytesPerAccount)} B each)`,
    "–",
    ms(summary.redisSlopeBytesPerBlockAfterWindowBeyondNewAccounts),
  );
  row("PostgreSQL bytes/block (pg_database_size after CHECKPOINT)", "–", ms(summary.postgresBytesPerBlock));
  row("PostgreSQL WAL bytes/block", "–", ms(summary.postgresWalBytesPerBlock));
  for (const [name, figures] of Object.entries(summary.postgresTables ?? {}))
    row(
      `  ${name}: bytes/block (rows/block, bytes/row)`,
      "–",
      `${ms(figures.bytesPerBlock)} (${figures.rowsPerBlock.toFixed(1)}, ${ms(figures.bytesPerRow)})`,
    );
  const kafka: Array<Record<string, string>> = Object.entries(results.stream.byEventType).map(([type, figures]) => ({
    "event type": type,
    "records/block": (figures.records / results.stream.blocks).toFixed(1),
    "Kafka bytes/block": ms(figures.kafkaBytesPerBlock),
    share: `${(figures.share * 100).toFixed(1)} %`,
  }));
  return `${table(rows)}\n\nchain.network.v1 (${TOPICS.chainNetwork.partitions} partitions), ${mb(results.stream.kafkaBytesPerBlock)} a block (epoch ${mb(results.stream.kafkaBytesPerEpochBlock)}, other ${mb(results.stream.kafkaBytesPerOtherBlock)}):\n${table(kafka)}`;
}
