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
import { authCli, freePorts, repoRoot, silentProgress, startStack } from "@platform/local-stack";
import { createRedis } from "@platform/store";
import { spawnManaged, tempDir, waitFor } from "@platform/testing";
import { measureRotating, warmUp, type Target } from "./measure.js";
import { profileGatewayPath } from "./profile.js";
import { cpuRatio, figuresOf, renderTables, TARGETS, type RouteFigures } from "./report.js";
import { benchRoutes, type BenchRoute, type HalBody } from "./routes.js";
import { seedAccountActivity } from "./seed.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "32,128").split(",").map(Number);
/** `all` (the default), `headline` (one route per group), or a comma list of groups, measured in that order. */
const ROUTES = process.env.BENCH_ROUTES ?? "all";
/** Warm-up per route and side before anything is measured; the first route measured reads high with less. */
const WARM_UP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const TRANSFERS = 300;

const startedAt = Date.now();
const loadAtStart = loadavg();
const state = tempDir("bench-data");
const ports = await freePorts();
process.stdout.write("starting the stack (Kafka, Redis, NATS, anvil, the Subtensor runtime, services, simulator)…\n");
const stack = await startStack({
  stateDir: state.path,
  ports,
  detached: false,
  runtime: "dist",
  progress: silentProgress,
  logLevel: "warn",
  nativeNetwork: true,
});
const gatewayUrl = stack.descriptor.gatewayUrl;
const redisUrl = stack.descriptor.infrastructure.redisUrl;
const authTarget = stack.descriptor.processes.find((entry) => entry.name === "auth")!.adminGrpcTarget!;

const baselinePort = (await freePorts()).gateway;
const baselineUrl = `http://127.0.0.1:${baselinePort}`;
const baseline = spawnManaged({
  name: "data-baseline",
  command: process.execPath,
  args: ["--conditions=@platform/source", "--import", "tsx", join(repoRoot, "bench", "data", "baseline.ts")],
  cwd: repoRoot,
  logFile: join(state.path, "logs", "data-baseline.log"),
  env: {
    PATH: process.env.PATH,
    NODE_ENV: "production",
    REDIS_URL: redisUrl,
    HTTP_PORT: String(baselinePort),
    LOG_LEVEL: "warn",
    BENCH_BASELINE_AUTOPIPELINE: process.env.BENCH_BASELINE_AUTOPIPELINE ?? "",
  },
});
// BENCH_NODE_BASELINE=1: a second reference, the same handlers on node's HTTP server without
// express (the gateway serves its GET routes that way), measured beside the other two.
const nodeBaselineUrl =
  process.env.BENCH_NODE_BASELINE === "1" ? `http://127.0.0.1:${(await freePorts()).gateway}` : undefined;
const nodeBaseline =
  nodeBaselineUrl === undefined
    ? undefined
    : spawnManaged({
        name: "data-node-baseline",
        command: process.execPath,
        args: ["--conditions=@platform/source", "--import", "tsx", join(repoRoot, "bench", "data", "baseline.ts")],
        cwd: repoRoot,
        logFile: join(state.path, "logs", "data-node-baseline.log"),
        env: {
          PATH: process.env.PATH,
          NODE_ENV: "production",
          REDIS_URL: redisUrl,
          HTTP_PORT: new URL(nodeBaselineUrl).port,
          LOG_LEVEL: "warn",
          BASELINE_HTTP: "node",
        },
      });
const redis = createRedis({ url: redisUrl, connectionName: "bench-data", commandTimeoutMs: 10_000 });

try {
  await waitFor(async () => (await fetch(`${baselineUrl}/readyz`).catch(() => undefined))?.status === 200, {
    what: "the baseline",
    timeoutMs: 60_000,
  });
  if (nodeBaselineUrl)
    await waitFor(async () => (await fetch(`${nodeBaselineUrl}/readyz`).catch(() => undefined))?.status === 200, {
      what: "the node:http baseline",
      timeoutMs: 60_000,
    });
  const key = JSON.parse(
    await authCli(
      "dist",
      ["keys", "create", "--name", "bench-data", "--scopes", "data:read", "--tier", "unlimited", "--json"],
      { AUTH_ADMIN_GRPC_TARGET: authTarget },
    ),
  ) as { id: string; secret: string };
  const issued = await fetch(`${gatewayUrl}/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }),
  });
  if (issued.status !== 200) throw new Error(`POST /auth answered ${issued.status}`);
  const headers = { authorization: `Bearer ${((await issued.json()) as { access_token: string }).access_token}` };

  process.stdout.write(
    `seeding ${TRANSFERS} transfers to a seeded coldkey of the native network and waiting for the read models…\n`,
  );
  const { address, netuid } = await seedAccountActivity(stack, TRANSFERS);
  const routes = selectRoutes(benchRoutes(address, netuid));
  for (const route of routes) await waitPopulated(route, headers);

  const pidOf = (name: string) => stack.processes.get(name)!.pid;
  const processes: Record<string, number> = {
    bench: process.pid,
    baseline: baseline.pid,
    gateway: pidOf("gateway"),
    "data-query": pidOf("data-query"),
    redis: pidOf("redis"),
  };
  if (nodeBaseline) processes["node-baseline"] = nodeBaseline.pid;
  const targetsOf = (route: BenchRoute): Target[] => [
    { side: "baseline", url: `${baselineUrl}${route.path}` },
    { side: "gateway", url: `${gatewayUrl}${route.path}`, headers },
    ...(nodeBaselineUrl ? [{ side: "node-baseline" as const, url: `${nodeBaselineUrl}${route.path}` }] : []),
  ];
  process.stdout.write("warming up every route on both sides…\n");
  await warmUp(routes.flatMap(targetsOf), 32, WARM_UP_SECONDS);
  const figures: RouteFigures[] = [];
  for (const route of routes) {
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
  report(figures, address);
  // BENCH_CPU_PROFILE=<dir>: afterwards, CPU profiles of a gateway and a data-query serving the headline routes.
  if (process.env.BENCH_CPU_PROFILE) {
    const paths = routes.filter((route) => route.headline).map((route) => route.path);
    await profileGatewayPath({
      stack,
      ports,
      stateDir: state.path,
      dir: process.env.BENCH_CPU_PROFILE,
      paths,
      headers,
      connections: 32,
      seconds: SECONDS * 2,
    });
  }
} finally {
  await redis.quit().catch(() => redis.disconnect());
  await baseline.stop();
  await nodeBaseline?.stop();
  await stack.stop();
  if (process.env.BENCH_KEEP_STATE === "1") process.stdout.write(`state and logs kept in ${state.path}\n`);
  else state.remove();
}

function selectRoutes(all: BenchRoute[]): BenchRoute[] {
  if (ROUTES === "all") return all;
  if (ROUTES === "headline") return all.filter((route) => route.headline);
  // Groups are measured in the order given: the first route measured reads high (see README).
  return ROUTES.split(",").flatMap((group) => all.filter((route) => route.group === group));
}

/**
 * Waits until the route answers 200 with data on both sides, and that both carry the same members
 * and the same number of embedded items: the baseline must do the gateway's work, not less.
 */
async function waitPopulated(route: BenchRoute, headers: Record<string, string>): Promise<void> {
  const read = async (url: string, withHeaders?: Record<string, string>) => {
    const response = await fetch(url, withHeaders ? { headers: withHeaders } : {});
    return { status: response.status, body: (await response.json()) as HalBody };
  };
  let last = "";
  await waitFor(
    async () => {
      const [gateway, base] = await Promise.all([
        read(`${gatewayUrl}${route.path}`, headers),
        read(`${baselineUrl}${route.path}`),
      ]);
      last = `gateway ${gateway.status} ${JSON.stringify(gateway.body).slice(0, 300)}; baseline ${base.status} ${JSON.stringify(base.body).slice(0, 300)}`;
      if (
        gateway.status !== 200 ||
        base.status !== 200 ||
        !route.populated(gateway.body) ||
        !route.populated(base.body)
      )
        return false;
      const shape = (body: HalBody) =>
        JSON.stringify([
          Object.keys(body).sort(),
          Object.entries(body._embedded ?? {}).map(([name, items]) => [name, items.length]),
        ]);
      if (shape(gateway.body) !== shape(base.body))
        throw new Error(`the baseline's answer differs in shape from the gateway's for ${route.path}`);
      return true;
    },
    { what: `${route.name} answering data on both sides`, timeoutMs: 120_000, intervalMs: 500 },
  ).catch((error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; last: ${last}`, { cause: error });
  });
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
