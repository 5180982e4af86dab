// bench/data: throughput and p50/p99 latency of each Data API route group through the real gateway
// (token check and rate limit on, with an unlimited-tier key; gRPC hop to data-query; Redis) at 32
// and 128 connections, against a baseline measured in the same run: a bare express handler that
// calls data-query's read-model function for the route and renders with the gateway's renderer,
// without token, rate limit, validation or gRPC (baseline.ts).
//
//   pnpm bench:data           (builds first; the stack runs from dist, like production)
//
// The stack runs with the native network (the real Subtensor runtime, seeded) and the simulator,
// so the read models hold real, moving data; a seeded coldkey gets extra incoming transfers so its
// first page of transactions is full. Each answer is
// checked to carry data on both sides before anything is measured. Figures also go to
// bench/results/data-<time>.json (git-ignored: one machine's).
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { repoRoot } from "@platform/local-stack";
import { createRedis } from "@platform/store";
import { measureRotating, type Target, warmUp } from "./measure.js";
import { profileGatewayPath } from "./profile.js";
import { cpuRatio, figuresOf, type RouteFigures, renderTables, TARGETS } from "./report.js";
import { type BenchRoute, benchRoutes } from "./routes.js";
import { seedAccountActivity } from "./seed.js";
import { authorization, createDataKey, startBaseline, startBenchStack, waitPopulated } from "./stackSetup.js";
import { measureTracingOverhead, startSpanSink, tracingEnv } from "./tracingOverhead.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "32,128").split(",").map(Number);
/** `all` (the default), `headline` (one route per group), or a comma list of groups, measured in that order. */
const ROUTES = process.env.BENCH_ROUTES ?? "all";
/** Warm-up per route and side before anything is measured; the first route measured reads high with less. */
const WARM_UP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const TRANSFERS = 300;
/** BENCH_TRACING=1: afterwards, tracing on (1 % sampled) against off on fresh gateway + data-query pairs. */
const TRACING = process.env.BENCH_TRACING === "1";
/** BENCH_SKIP_MAIN=1 (with BENCH_TRACING=1): only the tracing comparison. */
const SKIP_MAIN = process.env.BENCH_SKIP_MAIN === "1";

const startedAt = Date.now();
const loadAtStart = loadavg();
const bench = await startBenchStack("bench-data");
const { stack, ports, gatewayUrl, redisUrl } = bench;

const baseline = await startBaseline({
  name: "data-baseline",
  redisUrl,
  statePath: bench.statePath,
  historyEnv: bench.historyEnv,
  http: "express",
  env: { BENCH_BASELINE_AUTOPIPELINE: process.env.BENCH_BASELINE_AUTOPIPELINE ?? "" },
});
const baselineUrl = baseline.url;
// BENCH_NODE_BASELINE=1: a second reference, the same handlers on node's HTTP server without
// express (the gateway serves its GET routes that way), measured beside the other two.
const nodeBaseline =
  process.env.BENCH_NODE_BASELINE === "1"
    ? await startBaseline({
        name: "data-node-baseline",
        redisUrl,
        statePath: bench.statePath,
        historyEnv: bench.historyEnv,
        http: "node",
      })
    : undefined;
const nodeBaselineUrl = nodeBaseline?.url;
const redis = createRedis({ url: redisUrl, connectionName: "bench-data", commandTimeoutMs: 10_000 });

try {
  await baseline.ready();
  await nodeBaseline?.ready();
  const headers = await authorization(gatewayUrl, await createDataKey(stack, "bench-data"));

  process.stdout.write(
    `seeding ${TRANSFERS} transfers to a seeded coldkey of the native network and waiting for the read models…\n`,
  );
  const { address, netuid } = await seedAccountActivity(stack, TRANSFERS);
  const routes = selectRoutes(benchRoutes(address, netuid));
  for (const route of routes)
    await waitPopulated({ ...route, what: route.name, gatewayUrl, baselineUrl, headers, timeoutMs: 120_000 });

  const pidOf = (name: string) => stack.processes.get(name)!.pid;
  const processes: Record<string, number> = {
    bench: process.pid,
    baseline: baseline.process.pid,
    gateway: pidOf("gateway"),
    "data-query": pidOf("data-query"),
    redis: pidOf("redis"),
  };
  if (nodeBaseline) processes["node-baseline"] = nodeBaseline.process.pid;
  const targetsOf = (route: BenchRoute): Target[] => [
    { side: "baseline", url: `${baselineUrl}${route.path}` },
    { side: "gateway", url: `${gatewayUrl}${route.path}`, headers },
    ...(nodeBaselineUrl ? [{ side: "node-baseline" as const, url: `${nodeBaselineUrl}${route.path}` }] : []),
  ];
  const figures: RouteFigures[] = [];
  if (!SKIP_MAIN) process.stdout.write("warming up every route on both sides…\n");
  if (!SKIP_MAIN) await warmUp(routes.flatMap(targetsOf), 32, WARM_UP_SECONDS);
  for (const route of SKIP_MAIN ? [] : routes) {
    for (const connections of CONNECTIONS) {
      process.stdout.write(`measuring ${route.name} at ${connections} connections…\n`);
      const samples = await measureRotating({
        targets: targetsOf(route),
        connections,
        seconds: SECONDS,
        rounds: ROUNDS,
        redis,
        processes,
      });
      figures.push(figuresOf(route, connections, samples));
    }
  }
  if (!SKIP_MAIN) report(figures, address);
  if (TRACING)
    await measureTracingOverhead({
      stack,
      ports,
      stateDir: bench.statePath,
      routes,
      headers,
      connections: CONNECTIONS,
      seconds: SECONDS,
      rounds: Number(process.env.BENCH_TRACING_ROUNDS ?? 4),
      warmUpSeconds: WARM_UP_SECONDS,
      redis,
    });
  // BENCH_CPU_PROFILE=<dir>: afterwards, CPU profiles of a gateway and a data-query serving the headline
  // routes; with BENCH_PROFILE_TRACING=1 a pair with tracing off (<dir>/off), then one on at 1 % (<dir>/on).
  if (process.env.BENCH_CPU_PROFILE) {
    const paths = routes.filter((route) => route.headline).map((route) => route.path);
    const dir = process.env.BENCH_CPU_PROFILE;
    const sink = process.env.BENCH_PROFILE_TRACING === "1" ? await startSpanSink() : undefined;
    const variants =
      sink === undefined
        ? [{ dir, env: {} }]
        : [
            { dir: join(dir, "off"), env: {} },
            { dir: join(dir, "on"), env: tracingEnv(sink.endpoint) },
          ];
    try {
      for (const variant of variants)
        await profileGatewayPath({
          stack,
          ports,
          stateDir: bench.statePath,
          dir: variant.dir,
          env: variant.env,
          paths,
          headers,
          connections: 32,
          seconds: SECONDS * 2,
        });
    } finally {
      await sink?.close();
    }
  }
} finally {
  await redis.quit().catch(() => redis.disconnect());
  await baseline.process.stop();
  await nodeBaseline?.process.stop();
  await bench.stop();
}

function selectRoutes(all: BenchRoute[]): BenchRoute[] {
  if (ROUTES === "all") return all;
  if (ROUTES === "headline") return all.filter((route) => route.headline);
  // Groups are measured in the order given: the first route measured reads high (see README).
  return ROUTES.split(",").flatMap((group) => all.filter((route) => route.group === group));
}

function report(figures: RouteFigures[], address: string): void {
  const loadAtEnd = loadavg();
  const header = `bench/data — node ${process.version}, ${cpus().length} CPUs, ${ROUNDS} alternating rounds of ${SECONDS} s per side, route, connection count; load average ${loadAtStart.map((value) => value.toFixed(2)).join(" ")} at start, ${loadAtEnd.map((value) => value.toFixed(2)).join(" ")} at end`;
  if (process.env.BENCH_BASELINE_AUTOPIPELINE === "1")
    process.stdout.write("\nDIAGNOSTICS: the baseline runs with ioredis auto-pipelining; its ratios do not count\n");
  process.stdout.write(
    `\n${header}\n(latencies in ms; ratio = gateway req/s / baseline req/s; load = 1-min load average during the route)\n\n${renderTables(figures)}\n\n`,
  );
  const dir = join(repoRoot, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `data-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ node: process.version, cpus: cpus().length, seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, targets: TARGETS, account: address, loadAverage: { start: loadAtStart, end: loadAtEnd }, baselineAutoPipelining: process.env.BENCH_BASELINE_AUTOPIPELINE === "1", runSeconds: (Date.now() - startedAt) / 1_000, figures: figures.map((entry) => ({ ...entry, cpuRatio: cpuRatio(entry) })) }, null, 2)}\n`,
  );
  process.stdout.write(`figures written to ${file}; whole run ${((Date.now() - startedAt) / 1_000).toFixed(0)} s\n`);
}
