/**
 * The Finney-day soak (issue 41, point 7): every data projection of chain.network.v1 (the
 * projector's accounts, market and subnets) at mainnet size, at full speed, committing to both
 * stores (PostgreSQL, then Redis), against the same projections on Redis alone.
 *
 *   pnpm --silent build && (cd bench && pnpm finney-soak)          # 720 blocks, a tenth of a day
 *   BENCH_SOAK_BLOCKS=7200 (cd bench && pnpm finney-soak)          # the Finney day
 *
 * **Generated records, not a chain, not a recording**: chopsticks builds a mainnet-sized block in
 * 0.9-1.6 s here, so a day through it takes hours; and since no chain is read, nothing here measures
 * the source's reads (nor what chopsticks' layer depth costs them: bench/native/scale/README.md).
 * The stream (finneyStream.ts with finneyNetwork.ts; their headers say what is generated and how it
 * matches the ingestor or not): a seeded Finney-shaped state (100,006 accounts, 111,255 positions,
 * 129 netuids, 256 UIDs per subnet and 64 on root) and per block, in the ingestor's order,
 * AccountActivity (20-60), on an epoch block (129 consecutive of every 361, Tempo 360) a balance
 * snapshot per staker of the subnet that stepped, 129 PoolSnapshots, 129 EmissionSnapshots, the
 * SubnetSnapshots of the subnets whose registration was adjusted, whole ValidatorSetSnapshots of
 * every metagraph that moved (an epoch's, root's and those its root dividends reached; a stake on a
 * registered validator), the HolderPositions of every subnet a stake event or the epoch named
 * (chunks of 2,000), one NetworkStatsSnapshot and a BlockSeen per partition. Each encoded with
 * @platform/proto's real types; `kafkaBytesPerBlock` is each record as kafkajs' RecordBatch v2
 * record encoder writes it (key, value and the envelope headers `toKafkaMessage` sets: event-id,
 * event-type, schema; no traceparent, tracing being off by default; batch headers and compression
 * left out).
 *
 * The consumer is played as bench/native/scale/readModels.ts plays it (soakRig.ts `feeder`): kafkajs'
 * default partitioner over the topic's 6 partitions, batches of up to 1 MiB per partition, the three
 * projections side by side in this process (each its own consumer, as their Deployments), a
 * projection's partitions one after the other. Before the stream, the ingestor's first full snapshot
 * (every staker's balance, every subnet's pool, emission, settings, metagraph and holders) is applied
 * off the clock; generating is off the clock. The history side's block partitions are created
 * before the run, off the clock (`precreatePartitions`: left to the projections, the first commits of
 * market and subnets into a new partition deadlock).
 *
 * Two sides on fresh servers (one real Redis for the three; a real PostgreSQL 15 from
 * `startHistoryServer({ durable: true })`, so every commit is fsynced, one pool of 8 as the projector
 * role, which the projector process shares among its projections):
 * - **baseline**: the projections on Redis alone (no history);
 * - **history**: with the history database (each batch committed to PostgreSQL, then Redis).
 * Each side runs two passes: **incremental** (one block per fetch, as at the head: a block's commit
 * ms from handing its records over to the last batch of the slowest projection; each projection's
 * own is its part of that, in one event loop shared with the other two) and **catch-up** (the whole
 * stream as a backlog, fetches of up to 10 MiB, epoch blocks in Finney's proportion: blocks / time).
 *
 * BENCH_SOAK_BLOCKS (720), BENCH_SOAK_WINDOW (720; at most half the run so a slope after it is
 * measured), BENCH_SOAK_SEED (41), BENCH_SOAK_FIRST_BLOCK (4,999,850: the top of a tempo cycle),
 * BENCH_SOAK_ACTIVITY_MIN / _MAX (20 / 60), BENCH_SOAK_PASSES (incremental,catch-up),
 * BENCH_SOAK_SIDES (baseline,history). Writes bench/results/finney-soak-<time>.json. The stores'
 * figures (Redis' used_memory and its slope after the window, PostgreSQL's bytes) come from the
 * incremental pass, or from the catch-up when it runs alone: a Finney day fed one block at a time
 * takes hours here, as a backlog well under one, so the day is
 * `BENCH_SOAK_BLOCKS=7200 BENCH_SOAK_WINDOW=3600 BENCH_SOAK_SIDES=history BENCH_SOAK_PASSES=catch-up`
 * and the per-block times come from the 720-block run.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { HistoryDb } from "@platform/history";
import { type HistoryServer, startHistoryServer } from "@platform/history/testing";
import { createLogger, type Logger } from "@platform/log";
import { TOPICS } from "@platform/proto/topics";
import { accountsKeys, marketKeys, subnetsKeys } from "@platform/read-models";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { accountsProjection } from "../../services/projector/src/accounts/projection.js";
import { marketProjection } from "../../services/projector/src/market/projection.js";
import { subnetsProjection } from "../../services/projector/src/subnets/projection.js";
import { finneyNetwork } from "./finneyNetwork.js";
import {
  type BlockTiming,
  type CatchUpFigures,
  type IncrementalFigures,
  PROJECTIONS,
  type RedisFamily,
  report,
  SETTINGS,
  type SideName,
  type SoakResults,
  type StoreFigures,
  summaryOf,
} from "./finneySoakReport.js";
import { streamFigures } from "./finneySoakStream.js";
import { type FinneyStream, finneyStream, type StreamBlock } from "./finneyStream.js";
import {
  FETCH_MAX_BYTES,
  type FedProjection,
  feeder,
  postgresFigures,
  redisFamilies,
  timedBegin,
  usedMemory,
} from "./soakRig.js";

/** A side's servers and its three projections, fresh for each pass. */
interface Rig {
  side: SideName;
  projections: FedProjection[];
  redis: Redis;
  history: HistoryServer | undefined;
  /** Superuser pool: CHECKPOINT and sizes. */
  admin: HistoryDb | undefined;
  logged: string[];
  stop(): Promise<void>;
}

function capturingLogger(logged: string[]): Logger {
  return createLogger({
    service: "bench-finney-soak",
    level: "warn",
    destination: new Writable({
      write: (chunk, _encoding, callback) => {
        if (logged.length < 20) logged.push(String(chunk).slice(0, 400));
        callback();
      },
    }),
  });
}

async function startRig(side: SideName, dir: string): Promise<Rig> {
  const folder = join(dir, `${side}-${Date.now()}`);
  const [redisServer, history]: [RunningRedis, HistoryServer | undefined] = await Promise.all([
    startRedis({ dir: join(folder, "redis"), logFile: join(folder, "redis.log") }),
    side === "history" ? startHistoryServer({ dataDir: join(folder, "pg"), durable: true }) : undefined,
  ]);
  // WATCH belongs to a connection: each projection gets one of its own, as in the projector.
  const connections = ["stats", ...PROJECTIONS].map((name) =>
    createRedis({ url: redisServer.url, connectionName: `bench-finney-${name}`, commandTimeoutMs: 300_000 }),
  );
  await waitFor(async () => connections.every((connection) => connection.status === "ready"), {
    what: "the bench's Redis connections",
  });
  const [redis, accountsRedis, marketRedis, subnetsRedis] = connections as [Redis, Redis, Redis, Redis];
  const logged: string[] = [];
  const log = capturingLogger(logged);
  const admin = history?.connect("postgres", 1);
  if (admin !== undefined) await precreatePartitions(admin);
  const pool = history?.connect("projector", 8);
  const clocks = { accounts: { ms: 0 }, market: { ms: 0 }, subnets: { ms: 0 } };
  const timed = (name: keyof typeof clocks) => (pool === undefined ? undefined : timedBegin(pool, clocks[name]));
  const projections: FedProjection[] = [
    {
      name: "accounts",
      projection: accountsProjection({ redis: accountsRedis, history: timed("accounts"), log }),
      postgresClock: clocks.accounts,
    },
    {
      name: "market",
      // With history, Redis keeps the pools' hot window only (REDIS_HOT_WINDOW_BLOCKS), set to the
      // soak's window so that the slope after it is Redis' steady state; alone, it keeps the default.
      projection: marketProjection({
        redis: marketRedis,
        history: timed("market"),
        log,
        ...(pool === undefined ? {} : { hotWindowBlocks: SETTINGS.window }),
      }),
      postgresClock: clocks.market,
    },
    {
      name: "subnets",
      projection: subnetsProjection({ redis: subnetsRedis, history: timed("subnets"), log }),
      postgresClock: clocks.subnets,
    },
  ];
  return {
    side,
    projections,
    redis,
    history,
    admin,
    logged,
    async stop() {
      for (const connection of connections) connection.disconnect();
      await history?.stop();
      await redisServer.stop();
    },
  };
}

/**
 * Every block partition the run writes, created before it, off the clock. Left to the projections,
 * the market and subnets commits that first reach a new partition of history.series_points side by
 * side deadlock (40P01): one holds the advisory lock of history.ensure_block_partitions and waits
 * for the AccessExclusiveLock on the parent, the other read the parent earlier in its transaction
 * and waits for the advisory lock. A partition spans 216,000 blocks (30 days), so creating it is not
 * a per-block cost; the deadlock is a fault of its own, reported, not measured here.
 */
async function precreatePartitions(admin: HistoryDb): Promise<void> {
  const first = SETTINGS.firstBlock - 1;
  const last = SETTINGS.firstBlock + SETTINGS.blocks;
  for (const { parent } of await admin`select parent from history.partition_plan order by parent`)
    await admin`select history.ensure_block_partitions(${parent as string}, ${first}::bigint, ${last}::bigint)`;
}

const newStream = (): FinneyStream =>
  finneyStream({
    seed: SETTINGS.seed,
    firstBlock: SETTINGS.firstBlock,
    activityMin: SETTINGS.activityMin,
    activityMax: SETTINGS.activityMax,
    extend: finneyNetwork,
  });

/** Every projection committed the same offsets on every partition, and none logged a warning. */
async function checkCommitted(rig: Rig, lastBlock: number): Promise<void> {
  const head = await rig.redis.hget(accountsKeys.head, "blockNumber");
  if (head !== String(lastBlock)) throw new Error(`${rig.side}: the accounts head stands at ${head}, not ${lastBlock}`);
  const topic = TOPICS.chainNetwork.name;
  for (let partition = 0; partition < SETTINGS.partitions; partition++) {
    const offsets = await Promise.all(
      [accountsKeys, marketKeys, subnetsKeys].map((keys) => rig.redis.get(keys.offset(topic, partition))),
    );
    if (offsets[0] === null || offsets.some((offset) => offset !== offsets[0]))
      throw new Error(`${rig.side}: partition ${partition}'s offsets differ: ${offsets.join(" / ")}`);
  }
  if (rig.logged.length > 0) throw new Error(`${rig.side}: a projection logged:\n${rig.logged.join("\n")}`);
}

/**
 * The stores over a pass, off the clock: Redis' used_memory sampled every so many blocks (and at
 * the window's end, or the first sample past it when blocks come in fetches), PostgreSQL's sizes
 * before and after.
 */
async function storeSampler(rig: Rig) {
  const first = await usedMemory(rig.redis);
  const postgresFirst = rig.admin === undefined ? undefined : await postgresFigures(rig.admin);
  const redisSeries = [{ block: 0, bytes: first }];
  let afterWindow: number | undefined;
  let familiesAtWindow: { block: number; families: RedisFamily[] } | undefined;
  let sampled = 0;
  return {
    /** After `blocks` blocks of the pass are committed. */
    async passed(blocks: number): Promise<void> {
      const due = Math.floor(blocks / SETTINGS.sampleEvery) > Math.floor(sampled / SETTINGS.sampleEvery);
      const windowDone = afterWindow === undefined && blocks >= SETTINGS.window;
      if (!due && !windowDone && blocks !== SETTINGS.blocks) return;
      sampled = blocks;
      const bytes = await usedMemory(rig.redis);
      redisSeries.push({ block: blocks, bytes });
      if (windowDone) {
        afterWindow = bytes;
        familiesAtWindow = { block: blocks, families: await redisFamilies(rig.redis, Number.POSITIVE_INFINITY) };
      }
    },
    async figures(): Promise<StoreFigures> {
      const families = await redisFamilies(rig.redis, Number.POSITIVE_INFINITY);
      const figures: StoreFigures = {
        redisUsedMemory: { first, afterWindow: afterWindow ?? Number.NaN, end: redisSeries.at(-1)!.bytes },
        redisSeries,
        redisFamilies: families.slice(0, 16),
        ...(familiesAtWindow === undefined || redisSeries.at(-1)!.block <= familiesAtWindow.block
          ? {}
          : {
              redisFamiliesGrowth: {
                atWindow: familiesAtWindow.families,
                end: families,
                blocks: redisSeries.at(-1)!.block - familiesAtWindow.block,
              },
            }),
      };
      if (rig.admin !== undefined && postgresFirst !== undefined) {
        const postgresEnd = await postgresFigures(rig.admin);
        const [wal] =
          await rig.admin`select pg_wal_lsn_diff(${postgresEnd.walLsn}, ${postgresFirst.walLsn})::bigint::text as bytes`;
        figures.postgres = { first: postgresFirst, end: postgresEnd, walBytes: Number(wal!.bytes) };
      }
      return figures;
    },
  };
}

async function incrementalPass(side: SideName, dir: string): Promise<IncrementalFigures> {
  const stream = newStream();
  const rig = await startRig(side, dir);
  try {
    const feed = feeder(rig.projections);
    await feed([stream.snapshot()]);
    const stores = await storeSampler(rig);
    const blocks: BlockTiming[] = [];
    let last = SETTINGS.firstBlock;
    for (let index = 1; index <= SETTINGS.blocks; index++) {
      const block = stream.next();
      last = block.number;
      const timing = await feed([block]);
      blocks.push({
        number: block.number,
        epoch: block.epoch !== undefined,
        ms: timing.ms,
        postgresMs: timing.postgresMs,
        batches: timing.batches,
        byProjection: timing.byProjection,
      });
      await stores.passed(index);
      if (index % 60 === 0) console.error(`  ${side} incremental: ${index}/${SETTINGS.blocks} blocks`);
    }
    await checkCommitted(rig, last);
    return { side, blocks, ...(await stores.figures()) };
  } finally {
    await rig.stop();
  }
}

async function catchUpPass(side: SideName, dir: string): Promise<CatchUpFigures> {
  const stream = newStream();
  const rig = await startRig(side, dir);
  try {
    const feed = feeder(rig.projections);
    await feed([stream.snapshot()]);
    const stores = await storeSampler(rig);
    const figures: CatchUpFigures = {
      side,
      blocks: 0,
      epochBlocks: 0,
      ms: 0,
      postgresMs: 0,
      fetches: 0,
      byProjection: Object.fromEntries(PROJECTIONS.map((name) => [name, { ms: 0, postgresMs: 0 }])),
    };
    let pending: StreamBlock | undefined;
    let last = SETTINGS.firstBlock;
    while (figures.blocks < SETTINGS.blocks) {
      // One fetch: whole blocks up to FETCH_MAX_BYTES (at least one), generated off the clock.
      const fetch: StreamBlock[] = [];
      let bytes = 0;
      while (figures.blocks + fetch.length < SETTINGS.blocks) {
        const block = pending ?? stream.next();
        pending = undefined;
        if (fetch.length > 0 && bytes + block.bytes > FETCH_MAX_BYTES) {
          pending = block;
          break;
        }
        fetch.push(block);
        bytes += block.bytes;
      }
      const timing = await feed(fetch);
      figures.blocks += fetch.length;
      figures.epochBlocks += fetch.filter((block) => block.epoch !== undefined).length;
      figures.ms += timing.ms;
      figures.postgresMs += timing.postgresMs;
      figures.fetches += 1;
      for (const [name, own] of Object.entries(timing.byProjection)) {
        figures.byProjection[name]!.ms += own.ms;
        figures.byProjection[name]!.postgresMs += own.postgresMs;
      }
      last = fetch.at(-1)!.number;
      await stores.passed(figures.blocks);
      if (figures.fetches % 20 === 0) console.error(`  ${side} catch-up: ${figures.blocks}/${SETTINGS.blocks} blocks`);
    }
    await checkCommitted(rig, last);
    figures.stores = await stores.figures();
    return figures;
  } finally {
    await rig.stop();
  }
}

async function main(): Promise<void> {
  const started = new Date();
  const loadAtStart = loadavg();
  const dir = tempDir("finney-soak");
  const stream = streamFigures(newStream(), SETTINGS.blocks);
  console.log(
    `finney soak: ${SETTINGS.blocks} blocks from ${SETTINGS.firstBlock} (${stream.epochBlocks} epoch blocks), ` +
      `${stream.records.toLocaleString("en")} records, Kafka ${(stream.kafkaBytesPerBlock / 1e6).toFixed(2)} MB/block ` +
      `(epoch ${(stream.kafkaBytesPerEpochBlock / 1e6).toFixed(2)}, other ${(stream.kafkaBytesPerOtherBlock / 1e6).toFixed(2)}); ` +
      `window ${SETTINGS.window}; load average ${loadAtStart.map((load) => load.toFixed(2)).join(" ")} (a shared 2-core machine)\n`,
  );
  const results: SoakResults = { incremental: {}, catchUp: {}, stream };
  try {
    for (const side of ["baseline", "history"] as const)
      if (SETTINGS.passes.includes("incremental") && SETTINGS.sides.includes(side))
        results.incremental[side] = await incrementalPass(side, dir.path);
    for (const side of ["baseline", "history"] as const)
      if (SETTINGS.passes.includes("catch-up") && SETTINGS.sides.includes(side))
        results.catchUp[side] = await catchUpPass(side, dir.path);
  } finally {
    dir.remove();
  }
  console.log(report(results));
  const summary = summaryOf(results);
  const folder = new URL("../results/", import.meta.url);
  mkdirSync(folder, { recursive: true });
  const file = new URL(`finney-soak-${started.toISOString().replace(/[:.]/g, "-")}.json`, folder);
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        bench: "bench/store/finneySoak.ts",
        started: started.toISOString(),
        finished: new Date().toISOString(),
        machine: {
          loadAverageAtStart: loadAtStart,
          loadAverageAtEnd: loadavg(),
          note: "2 cores shared with other work",
        },
        settings: SETTINGS,
        summary,
        stream,
        catchUp: results.catchUp,
        redis: Object.fromEntries(
          Object.entries(results.incremental).map(([side, figures]) => [
            side,
            { used: figures.redisUsedMemory, series: figures.redisSeries, families: figures.redisFamilies },
          ]),
        ),
        postgres: results.incremental.history?.postgres,
        blocks: Object.fromEntries(
          Object.entries(results.incremental).map(([side, figures]) => [side, figures.blocks]),
        ),
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
