// bench/data, the realistic mix (issue 17, "Speed on a realistic mix"): the gateway (token check and
// rate limit on, an unlimited-tier key; conditional reads with its in-process cache; gRPC hop to
// data-query) against the bare node:http baseline (baseline.ts with BASELINE_HTTP=node: data-query's
// read functions, the gateway's renderers and entity tags, no gRPC), side by side in one run, on a
// seeded request sequence (mix.ts): Zipf (s = 1) over 10,000 accounts (the seeded ones hottest,
// most never on chain) and over every subnet of the stack, beside the market's latest views, with
// 20 % of requests conditional on the ETag of an earlier answer to the same URL.
//
//   pnpm --silent build && (cd bench && pnpm data-mix)
//   pnpm --silent build && (cd bench && BENCH_MIX_REDIS=standalone,cluster pnpm data-mix)   # one Redis, then a 3+3 cluster
//
// Per connection count (32, 128), rounds alternate which side goes first; each side's round lasts
// one block time after a per-round warm-up (or sends the sequence's first BENCH_MIX_REQUESTS). Prints req/s, p50, p99 and the share of 304s
// per side, CPU per request of each serving process, the ratios to the baseline against the targets
// (≥ 0.8 × throughput, p99 not worse), and the gateway's gateway_conditional_reads_total; writes
// everything to bench/results/data-mix-<time>.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { repoRoot } from "@platform/local-stack";
import { monotonicMicros, type ProfileMarks } from "../src/cpuProfile.js";
import { table } from "../src/load.js";
import { watchChangeMarks } from "./changeMarks.js";
import { type CpuTimeline, cpuAtChanges, lowerPriority, sampleCpu } from "./cpuTimeline.js";
import { cpuOf } from "./measure.js";
import { buildMix, describeMix, type Mix, type MixRoute, mixBlocks, mixPath } from "./mix.js";
import { CHANGE_WINDOW_MS, loadMix, type MixAmount, type MixLoadResult } from "./mixLoad.js";
import {
  counterDelta,
  counterSamples,
  MIX_TARGETS,
  type MixSample,
  type MixSide,
  mixFigures,
  renderCounts,
  renderMisses,
  renderMix,
  summarizeCounts,
} from "./mixReport.js";
import { mixSubjects, type Subjects } from "./mixSubjects.js";
import { withProfiledPair } from "./profile.js";
import type { HalBody } from "./routes.js";
import { seedAccountActivity } from "./seed.js";
import {
  authorization,
  type BaselineProcess,
  type BenchStack,
  buildNativeBlocks,
  chainHead,
  createDataKey,
  startBaseline,
  startBenchStack,
  waitPopulated,
} from "./stackSetup.js";
import { startSpanSink, tracingEnv } from "./tracingOverhead.js";

/**
 * The native network's block time: Bittensor's 12 s by default. Every block changes every answer
 * (each renders its read model's head), so the block time sets how long the gateway's kept answers
 * stand; the local stack's demo cadence (2 s, BENCH_MIX_BLOCK_MS=2000) drops them six times as often
 * as the network does.
 */
const BLOCK_MS = Number(process.env.BENCH_MIX_BLOCK_MS ?? 12_000);
/**
 * Time between the coin/USD price feed's rounds. Every round changes every balance's USD value, so
 * it drops every kept balance (40 % of the mix). A Chainlink-style aggregator posts a round when the
 * price moves past its deviation threshold or a heartbeat passes (hours to a day: docs.chain.link,
 * Data Feeds), and push oracles check the deviation every 30–60 s (docs.api3.org, "Deviation
 * thresholds"): 30 s is the busiest such feed. The simulator's demo cadence (3 s,
 * BENCH_MIX_PRICE_MS=3000) posts four rounds per native block, which no such feed does.
 */
const PRICE_MS = Number(process.env.BENCH_MIX_PRICE_MS ?? 30_000);
/**
 * How long each side's round lasts: one block time by default (BENCH_MIX_ROUND_MS), so every round
 * of either side meets exactly one block, whose burst of change signals drops the gateway's kept
 * answers, as continuous traffic meets one per block. BENCH_MIX_REQUESTS=<n> instead sends exactly
 * the sequence's first n requests per round on both sides (the same work; how many blocks a round
 * meets then depends on its speed).
 */
const ROUND: MixAmount =
  process.env.BENCH_MIX_REQUESTS === undefined
    ? { durationMs: Number(process.env.BENCH_MIX_ROUND_MS ?? BLOCK_MS) }
    : { requests: Number(process.env.BENCH_MIX_REQUESTS) };
/** Requests per round the sequence holds before it starts over: 25,000 a second of a timed round. */
const ROUND_CAPACITY = "requests" in ROUND ? ROUND.requests : Math.ceil(ROUND.durationMs * 25);
/** What the profiled pair (BENCH_CPU_PROFILE) serves per round, and what the mix's description counts. */
const PROFILED_REQUESTS = 60_000;
/** BENCH_PROFILE_ROUNDS: how many such rounds the profiled pair serves (more for more blocks in it). */
const PROFILED_ROUNDS = Number(process.env.BENCH_PROFILE_ROUNDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "32,128").split(",").map(Number);
/** Warm-up per side before anything is measured: the sequence's first requests, at 32 connections. */
const WARM_UP_REQUESTS = Number(process.env.BENCH_WARMUP_REQUESTS ?? 10_000);
const SEED = Number(process.env.BENCH_MIX_SEED ?? 17);
const ACCOUNTS = 10_000;
const EXPONENT = 1;
const CONDITIONAL_SHARE = 0.2;
/**
 * BENCH_MIX_ROUND_WARMUP: requests each side serves, unmeasured, right before each of its rounds, from
 * the sequence past the rounds' own (10,000 by default, 0 for none). Rounds alternate, so a side sits
 * idle for the other's round, longer than a block, after which none of the gateway's kept answers
 * stands: without a warm-up its every round starts as a cold start that continuous traffic never
 * has. With one both sides are measured in their steady state.
 */
const ROUND_WARM_UP = Number(process.env.BENCH_MIX_ROUND_WARMUP ?? 10_000);
const SEQUENCE_LENGTH = Math.max(ROUND_CAPACITY + ROUND_WARM_UP, WARM_UP_REQUESTS);
const IDLE_SAMPLE_MS = 1_000;
/**
 * BENCH_CPU_PROFILE=<dir>: afterwards, a second gateway and data-query with --cpu-prof (profile.ts)
 * serve the warm-up and two rounds (BENCH_PROFILE_ROUNDS) of the mix at 32 connections; their
 * profiles land in <dir>, with the times of the read-model changes meanwhile (profileSummary.ts
 * --changes splits a profile by them), and the CPU of every stack process around those changes is
 * printed (cpuTimeline.ts).
 */
const PROFILE_DIR = process.env.BENCH_CPU_PROFILE;
const TRANSFERS = 300;
const SPLIT_BY_CHANGES = process.env.BENCH_MIX_SPLIT === "1";
/**
 * BENCH_MIX_NICE_CHAIN=1: the stack's chain node (chopsticks) and simulator run at the lowest CPU
 * priority, every thread (nice 19), as if they ran on machines of their own as in production: at a
 * block they take a quarter of a core of the two here (cpuTimeline.ts), which this shows the tail
 * without.
 */
const NICE_CHAIN = process.env.BENCH_MIX_NICE_CHAIN === "1";
/**
 * BENCH_MIX_BUILD_BLOCKS: native blocks built at once before the mix is made (80 by default), so
 * that the chain's early blocks are older than the 64-point Redis windows of the network, emission,
 * subnet and pool series and the mix's `block_number` reads at them go to PostgreSQL, as reads at
 * most past blocks of a long-running chain do.
 */
const BUILD_BLOCKS = Number(process.env.BENCH_MIX_BUILD_BLOCKS ?? 80);

/**
 * BENCH_MIX_REDIS: where the read models live, `standalone` (the default), `cluster` (a 3+3 Redis
 * Cluster of the stack's own: data-query and the baseline read from replicas, the projector waits
 * for one replica per commit), or `standalone,cluster`: the whole mix on each, one after the other
 * in this run, then both summaries side by side.
 */
const TOPOLOGIES = (process.env.BENCH_MIX_REDIS ?? "standalone").split(",") as Array<"standalone" | "cluster">;
if (TOPOLOGIES.some((topology) => topology !== "standalone" && topology !== "cluster"))
  throw new Error(`BENCH_MIX_REDIS lists standalone and/or cluster, got ${process.env.BENCH_MIX_REDIS}`);

const startedAt = Date.now();
let loadAtStart = loadavg();
// The stack and baseline of the topology being measured (measure() reads them).
let bench: BenchStack;
let stack: BenchStack["stack"];
let gatewayUrl: string;
let baseline: BaselineProcess;
const summaries: Array<{ topology: string; figures: ReturnType<typeof mixFigures> }> = [];

for (const topology of TOPOLOGIES) {
  process.stdout.write(`\n— read models on ${topology === "cluster" ? "a 3+3 Redis Cluster" : "one Redis"} —\n`);
  loadAtStart = loadavg();
  bench = await startBenchStack(`bench-data-mix-${topology}`, {
    nativeBlockTimeMs: BLOCK_MS,
    priceIntervalMs: PRICE_MS,
    redisCluster: topology === "cluster",
  });
  ({ stack, gatewayUrl } = bench);
  if (NICE_CHAIN) lowerPriority(["subtensor", "simulator"].map((name) => stack.processes.get(name)!.pid));
  baseline = await startBaseline({
    name: "data-node-baseline",
    redisUrl: bench.redisUrl,
    cluster: bench.readModelsCluster,
    statePath: bench.statePath,
    historyEnv: bench.historyEnv,
    http: "node",
  });
  try {
    await baseline.ready();
    const key = await createDataKey(stack, "bench-data-mix");
    process.stdout.write(`seeding ${TRANSFERS} transfers to a seeded coldkey and waiting for the read models…\n`);
    const seeded = await seedAccountActivity(stack, TRANSFERS);
    const headers = await authorization(gatewayUrl, key);
    // The mix's past blocks run from the head before these blocks: every subnet of the mix is there by then.
    const firstBlock = await chainHead(stack.descriptor.substrate!.httpUrl);
    if (BUILD_BLOCKS > 0) {
      process.stdout.write(`building ${BUILD_BLOCKS} native blocks at once (the block reads' past)…\n`);
      await buildNativeBlocks(stack.descriptor.substrate!.httpUrl, BUILD_BLOCKS);
    }
    const subjects = await mixSubjects({ stack, gatewayUrl, subject: seeded.address, headers, accounts: ACCOUNTS });
    const head = await chainHead(stack.descriptor.substrate!.httpUrl);
    const blocks = mixBlocks(head, firstBlock);
    await checkBothSides(subjects, blocks, headers);
    const mix = buildMix({
      accounts: subjects.accounts,
      netuids: subjects.netuids,
      blocks,
      length: SEQUENCE_LENGTH,
      seed: SEED,
      exponent: EXPONENT,
      conditionalShare: CONDITIONAL_SHARE,
    });
    const described = describeMix(mix, PROFILED_REQUESTS);
    process.stdout.write(
      `mix: ${subjects.accounts.length} accounts (${subjects.seededAccounts} seeded, hottest), subnets ${subjects.netuids.join(", ")} (by rank); its first ${PROFILED_REQUESTS} requests: ${described.distinctUrls} distinct URLs, ${(described.conditionalShare * 100).toFixed(1)} % conditional\n`,
    );
    // A token of its own for the rounds (tokens live 15 minutes).
    const measured = await measure(mix, await authorization(gatewayUrl, key));
    report(mix, subjects, described, measured, topology);
    summaries.push({ topology, figures: mixFigures(measured.samples) });
    if (PROFILE_DIR !== undefined) await profileMix(mix, await authorization(gatewayUrl, key));
  } finally {
    await baseline.process.stop();
    await bench.stop();
  }
}
if (summaries.length > 1) {
  process.stdout.write("\nside by side (gateway ÷ baseline, each on its own stack in this run):\n");
  process.stdout.write(
    `${table(
      summaries.flatMap(({ topology, figures }) =>
        figures.map((figure) => ({
          redis: topology,
          connections: figure.connections,
          "gateway req/s": Math.round(figure.gateway.requestsPerSecond),
          "baseline req/s": Math.round(figure.baseline.requestsPerSecond),
          "req/s ratio": figure.ratio.toFixed(2),
          "gateway p99 ms": figure.gateway.p99Ms.toFixed(1),
          "p99 ratio": figure.p99Ratio.toFixed(2),
        })),
      ),
    )}\n`,
  );
}

async function profileMix(mix: Mix, headers: Record<string, string>): Promise<void> {
  // BENCH_PROFILE_TRACING=1: the profiled pair traces as production would (1 %, OTLP to a sink here).
  const sink = process.env.BENCH_PROFILE_TRACING === "1" ? await startSpanSink() : undefined;
  // When the read models changed during the profiled rounds, for splitting the profiles at a block.
  const changes = bench.readModelsCluster === undefined ? watchChangeMarks(bench.redisUrl) : undefined;
  const rounds = { fromMicros: 0, toMicros: 0 };
  let timeline: CpuTimeline;
  let samples: ReturnType<CpuTimeline["stop"]> = [];
  await withProfiledPair(
    {
      stack,
      ports: bench.ports,
      stateDir: bench.statePath,
      dir: PROFILE_DIR!,
      ...(sink === undefined ? {} : { env: tracingEnv(sink.endpoint) }),
    },
    async (baseUrl, pids) => {
      await loadMix({ baseUrl, headers, mix, connections: 32, requests: WARM_UP_REQUESTS });
      timeline = sampleCpu({
        bench: process.pid,
        "gateway (profiled)": pids.gateway,
        "data-query (profiled)": pids["data-query"],
        ...Object.fromEntries([...stack.processes].map(([name, handle]) => [name, handle.pid])),
      });
      rounds.fromMicros = monotonicMicros();
      for (let round = 0; round < PROFILED_ROUNDS; round += 1) {
        const result = await loadMix({ baseUrl, headers, mix, connections: 32, requests: PROFILED_REQUESTS });
        process.stdout.write(`profiled mix round ${round + 1}: ${result.requestsPerSecond.toFixed(0)} req/s\n`);
      }
      rounds.toMicros = monotonicMicros();
      samples = timeline.stop();
    },
  ).finally(() => sink?.close());
  if (changes === undefined) return;
  await changes.stop();
  const marks = join(PROFILE_DIR!, `changes-${Date.now()}.json`);
  const split: ProfileMarks = { ...rounds, changesMicros: changes.monotonicMicros() };
  writeFileSync(marks, JSON.stringify(split));
  process.stdout.write(
    `CPU of the stack's processes during the profiled rounds, in the ${CHANGE_WINDOW_MS} ms after each read-model change and in the rest (share of one core; the machine has ${cpus().length}):\n${table(
      cpuAtChanges(samples, split, CHANGE_WINDOW_MS)
        .filter((row) => row.afterChange + row.rest >= 0.01)
        .map((row) => ({
          process: row.name,
          "after a change": `${(100 * row.afterChange).toFixed(0)} %`,
          "the rest": `${(100 * row.rest).toFixed(0)} %`,
        })),
    )}\n`,
  );
  process.stdout.write(
    `${changes.count()} read-model changes during the profile, their times in ${marks}; split a profile by them with\n` +
      `  tsx bench/data/profileSummary.ts --changes ${marks} <file.cpuprofile>\n`,
  );
}

/**
 * Every read of the mix answers 200 with data on both sides, with the same members and embedded
 * counts, and the same ETag at once (the same bytes) for one URL of each; an account that was
 * never on chain answers 200 on both.
 */
async function checkBothSides(
  subjects: Subjects,
  blocks: readonly string[],
  headers: Record<string, string>,
): Promise<void> {
  const items = (body: HalBody) => body._embedded?.items?.length ?? 0;
  const populated: Record<MixRoute, (body: HalBody) => boolean> = {
    balance: (body) => BigInt(String(body.balance_total_rao ?? "0")) > 0n,
    transactions: (body) => items(body) === 50,
    validators: (body) => items(body) > 0,
    holders: (body) => items(body) > 0,
    subnetPool: (body) => items(body) === 1,
    subnets: (body) => items(body) > 0,
    price: (body) => Number(body.price) > 0,
    pools: (body) => items(body) > 0,
    stats: (body) => body.as_of !== undefined,
    emissions: (body) => items(body) > 0,
    balanceAt: (body) => BigInt(String(body.balance_total_rao ?? "0")) > 0n,
    subnetPoolAt: (body) => items(body) === 1,
    validatorsAt: () => true,
    statsAt: (body) => body.as_of !== undefined,
    statsHistory: (body) => items(body) > 0,
    emissionsHistory: (body) => items(body) > 0,
    subnetsHistory: (body) => items(body) > 0,
    poolHistory: (body) => items(body) > 0,
    priceHistory: (body) => items(body) > 0,
  };
  const [account] = subjects.accounts;
  const [netuid] = subjects.netuids;
  const checks: Array<{ path: string; what: string; populated(body: HalBody): boolean }> = (
    Object.keys(populated) as MixRoute[]
  ).map((route) => ({
    path: mixPath(route, account!, netuid!),
    what: route,
    populated: populated[route],
  }));
  const cold = subjects.accounts[subjects.accounts.length - 1]!;
  // The block reads at the oldest block of the mix (in PostgreSQL only) and at a recent one.
  for (const block of [blocks.at(-1)!, blocks[0]!])
    for (const route of ["subnetPoolAt", "validatorsAt", "statsAt"] as const)
      checks.push({ path: mixPath(route, account!, netuid!, block), what: `${route} ${block}`, populated: () => true });
  checks.push(
    { path: mixPath("balance", cold, 0), what: "a cold account's balance", populated: () => true },
    { path: mixPath("transactions", cold, 0), what: "a cold account's transactions", populated: () => true },
  );
  process.stdout.write("checking that both sides answer every read of the mix alike…\n");
  for (const check of checks)
    await waitPopulated({
      ...check,
      gatewayUrl,
      baselineUrl: baseline.url,
      headers,
      timeoutMs: 120_000,
      sameTag: true,
    });
}

/** Warm-up on both sides, then per connection count the rounds, alternating which side goes first. */
async function measure(mix: Mix, headers: Record<string, string>) {
  const targets: Record<MixSide, { baseUrl: string; headers?: Record<string, string>; label: MixSide }> = {
    baseline: { baseUrl: baseline.url, label: "baseline" },
    gateway: { baseUrl: gatewayUrl, headers, label: "gateway" },
  };
  const gatewayOps = stack.descriptor.processes.find((entry) => entry.name === "gateway")!.opsUrl!;
  const metrics = async () => (await fetch(`${gatewayOps}/metrics`)).text();
  const reads = async () => {
    const text = await metrics();
    return {
      ...counterSamples(text, "gateway_conditional_reads_total"),
      ...counterSamples(text, "gateway_kept_answers_served_total"),
      ...counterSamples(text, "gateway_conditional_change_signals_total"),
    };
  };
  // Per gateway round: how much of it the gateway answered from memory, and how many change signals
  // dropped its kept answers meanwhile (a round that meets more blocks or price rounds keeps less);
  // and its misses: data-query's calls by method, over the blocks the chain built meanwhile.
  const dataQueryOps = stack.descriptor.processes.find((entry) => entry.name === "data-query")!.opsUrl!;
  const callsByMethod = async () => {
    const text = await (await fetch(`${dataQueryOps}/metrics`)).text();
    const calls: Record<string, number> = {};
    for (const match of text.matchAll(/^grpc_server_handled_total\{[^}]*grpc_method="([^"]+)"[^}]*\} (\S+)$/gm))
      calls[match[1]!] = (calls[match[1]!] ?? 0) + Number(match[2]);
    return calls;
  };
  const memoryDuring = async (during: () => Promise<unknown>) => {
    const [start, callsBefore, headBefore] = await Promise.all([
      reads(),
      callsByMethod(),
      chainHead(stack.descriptor.substrate!.httpUrl),
    ]);
    await during();
    const [end, callsAfter, headAfter] = await Promise.all([
      reads(),
      callsByMethod(),
      chainHead(stack.descriptor.substrate!.httpUrl),
    ]);
    const counts = summarizeCounts(counterDelta(start, end));
    const calls = Object.fromEntries(
      Object.entries(callsAfter)
        .map(([method, total]) => [method, total - (callsBefore[method] ?? 0)] as const)
        .filter(([, delta]) => delta > 0),
    );
    return {
      memory: { answered: counts.notModifiedCached + counts.keptAnswersServed, signals: counts.changeSignals },
      misses: { blocks: headAfter - headBefore, calls },
    };
  };
  const pidOf = (name: string) => stack.processes.get(name)!.pid;
  const processes: Record<string, number> = {
    bench: process.pid,
    baseline: baseline.process.pid,
    gateway: pidOf("gateway"),
    "data-query": pidOf("data-query"),
    redis: pidOf("redis"),
  };
  // BENCH_MIX_SPLIT=1: latencies split by read-model changes (changeMarks.ts), for finding the tail;
  // off by default, so that figures are taken with nothing extra in the load generator's process.
  // (On a cluster the change log lives there: the split reads the standalone server only.)
  const changes =
    SPLIT_BY_CHANGES && bench.readModelsCluster === undefined ? watchChangeMarks(bench.redisUrl) : undefined;
  process.stdout.write(`warming up both sides on the mix (its first ${WARM_UP_REQUESTS} requests each)…\n`);
  for (const side of ["baseline", "gateway"] as const)
    await loadMix({ ...targets[side], mix, connections: 32, requests: WARM_UP_REQUESTS });
  const before = await reads();
  const samples: MixSample[] = [];
  for (const connections of CONNECTIONS) {
    // What the watched processes do with no load (projector writes, probes, the simulator's blocks).
    const idle = await cpuDuring(processes, () => new Promise((resolve) => setTimeout(resolve, IDLE_SAMPLE_MS)));
    for (let round = 0; round < ROUNDS; round += 1) {
      const order: MixSide[] = round % 2 === 0 ? ["baseline", "gateway"] : ["gateway", "baseline"];
      process.stdout.write(`${connections} connections, round ${round + 1}: ${order.join(" then ")}…\n`);
      for (const side of order) {
        if (ROUND_WARM_UP > 0)
          await loadMix({ ...targets[side], mix, connections, requests: ROUND_WARM_UP, from: ROUND_CAPACITY });
        let result: MixLoadResult | undefined;
        let memory: MixSample["memory"];
        let misses: MixSample["misses"];
        const busy = await cpuDuring(processes, async () => {
          const load = async () => {
            result = await loadMix({
              ...targets[side],
              mix,
              connections,
              ...ROUND,
              ...(changes ? { changedAt: changes.lastAt } : {}),
            });
          };
          if (side === "gateway") ({ memory, misses } = await memoryDuring(load));
          else await load();
        });
        const perRequest = (name: string) =>
          (Math.max(0, busy.cpu[name]! - (idle.cpu[name]! / idle.seconds) * busy.seconds) * 1e6) / result!.total;
        const cpuMicrosPerRequest = Object.fromEntries(Object.keys(processes).map((name) => [name, perRequest(name)]));
        samples.push({
          ...result!,
          side,
          connections,
          round,
          first: order[0]!,
          loadAverage: loadavg()[0]!,
          cpuMicrosPerRequest,
          ...(memory ? { memory } : {}),
          ...(misses ? { misses } : {}),
        });
      }
    }
  }
  await changes?.stop();
  const after = await reads();
  const cacheEnabled = counterSamples(await metrics(), "gateway_conditional_cache_enabled");
  return { samples, conditionalReads: { during: counterDelta(before, after), total: after }, cacheEnabled };
}

/** CPU seconds each watched process used while `during` ran, and the wall seconds it took. */
async function cpuDuring(processes: Record<string, number>, during: () => Promise<unknown>) {
  const before = cpuOf(processes);
  const started = performance.now();
  await during();
  const seconds = (performance.now() - started) / 1_000;
  const after = cpuOf(processes);
  return {
    seconds,
    cpu: Object.fromEntries(Object.keys(processes).map((name) => [name, after[name]! - before[name]!])),
  };
}

function report(
  mix: Mix,
  subjects: Subjects,
  described: ReturnType<typeof describeMix>,
  measured: Awaited<ReturnType<typeof measure>>,
  topology: string,
): void {
  const figures = mixFigures(measured.samples);
  const loadAtEnd = loadavg();
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(" ");
  process.stdout.write(
    `\nbench/data mix (read models on ${topology} Redis) — node ${process.version}, ${cpus().length} CPUs, ${ROUNDS} alternating rounds of ${"requests" in ROUND ? `${ROUND.requests} requests` : `${ROUND.durationMs / 1_000} s`} per side and connection count${ROUND_WARM_UP > 0 ? `, each after ${ROUND_WARM_UP} unmeasured` : ""}, a native block every ${BLOCK_MS / 1_000} s, a price round every ${PRICE_MS / 1_000} s; load average ${load(loadAtStart)} at start, ${load(loadAtEnd)} at end\n` +
      `route share of the sequence: ${Object.entries(described.routeShare)
        .map(([route, share]) => `${route} ${(share * 100).toFixed(1)} %`)
        .join(", ")}\n` +
      `hottest URLs: ${described.hottest.map((entry) => `${entry.url} ${(entry.share * 100).toFixed(1)} %`).join(", ")}\n` +
      (subjects.leftOut.length > 0 ? `subnets left out: ${JSON.stringify(subjects.leftOut)}\n` : "") +
      `\n${renderMix(measured.samples, figures)}\n\n` +
      `the gateway's answers from memory (not_modified_cached: 304 without a data-query call; gateway_kept_answers_served_total: 200 sent again without one); cache enabled: ${JSON.stringify(measured.cacheEnabled)}\n${renderCounts(measured.conditionalReads.during, measured.conditionalReads.total)}\n` +
      `during the rounds, over every route: ${JSON.stringify(summarizeCounts(measured.conditionalReads.during))}\n\n` +
      `the gateway's misses (data-query calls) by method, per block the chain built during its rounds:\n${renderMisses(measured.samples)}\n\n` +
      `as_of going back (the mix's own check: a 200 older than one already answered for its URL before the request left): ${(
        ["baseline", "gateway"] as const
      )
        .map((side) => {
          const rounds = measured.samples.filter((sample) => sample.side === side);
          const count = rounds.reduce((total, sample) => total + sample.asOfBack.count, 0);
          const examples = rounds.flatMap((sample) => sample.asOfBack.examples).slice(0, 3);
          return `${side} ${count}${examples.length > 0 ? ` (${examples.join("; ")})` : ""}`;
        })
        .join(", ")}\n\n`,
  );
  const dir = join(repoRoot, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `data-mix-${topology}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  const settings = {
    round: ROUND,
    nativeBlockMs: BLOCK_MS,
    priceRoundMs: PRICE_MS,
    rounds: ROUNDS,
    connections: CONNECTIONS,
    warmUpRequests: WARM_UP_REQUESTS,
  };
  const mixSettings = { seed: SEED, accounts: ACCOUNTS, exponent: EXPONENT, conditionalShare: CONDITIONAL_SHARE };
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        node: process.version,
        cpus: cpus().length,
        redis: topology,
        ...settings,
        mix: { ...mixSettings, sequenceLength: mix.sequence.length, netuids: subjects.netuids, ...described },
        subnetsLeftOut: subjects.leftOut,
        seededAccounts: subjects.accounts.slice(0, subjects.seededAccounts),
        targets: MIX_TARGETS,
        loadAverage: { start: loadAtStart, end: loadAtEnd },
        runSeconds: (Date.now() - startedAt) / 1_000,
        figures,
        conditionalReads: { ...measured.conditionalReads, summary: summarizeCounts(measured.conditionalReads.during) },
        samples: measured.samples,
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`figures written to ${file}; whole run ${((Date.now() - startedAt) / 1_000).toFixed(0)} s\n`);
}
