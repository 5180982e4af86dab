// Development aid for bench/data (not the benchmark): starts the stack once, then measures on demand
// so a change can be rebuilt and measured without starting Kafka, the chains and the simulator again.
//
//   cd bench && npx tsx --conditions=@platform/source data/iterate.ts <control dir>
//
// Each time a file `<control dir>/go` appears (its text: optional `KEY=value` lines among
// ROUTES, SECONDS, ROUNDS, CONNECTIONS, WARMUP, PROFILE=<dir>, VARIANTS), it starts a fresh
// data-query and gateway from dist (with --cpu-prof when PROFILE is set) beside the stack's own —
// one pair per variant of `VARIANTS=NAME=value,...|NAME=value,...` (extra environment variables,
// for A/B comparisons of experimental switches) — and a fresh baseline from source; warms them up,
// measures each route like run.ts (rotating rounds, CPU and Redis commands per request), prints a
// table, stops the processes and renames `go` to `done-<n>`.
// `<control dir>/stop` ends it. Figures from here are the fresh processes' (same code, same dist),
// not the stack's gateway: for the published figures run `pnpm bench:data`.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  authCli,
  freePorts,
  redisAdminUrl,
  repoRoot,
  serviceCommand,
  serviceProcessSpecs,
  silentProgress,
  startStack,
} from "@platform/local-stack";
import { createRedis } from "@platform/store";
import { type ManagedProcess, spawnManaged, tempDir, waitFor } from "@platform/testing";
import { table } from "../src/load.js";
import { measureRotating, type Side, type Target, warmUp } from "./measure.js";
import { type BenchRoute, benchRoutes } from "./routes.js";
import { seedAccountActivity } from "./seed.js";

const control = process.argv[2];
if (control === undefined) throw new Error("usage: iterate.ts <control dir>");
mkdirSync(control, { recursive: true });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const state = tempDir("bench-data-iterate");
const ports = await freePorts();
process.stdout.write("starting the stack…\n");
const stack = await startStack({
  stateDir: state.path,
  ports,
  detached: false,
  runtime: "dist",
  progress: silentProgress,
  logLevel: "warn",
  nativeNetwork: true,
});
const redisUrl = redisAdminUrl(stack.descriptor);
const authTarget = stack.descriptor.processes.find((entry) => entry.name === "auth")!.adminGrpcTarget!;
const redis = createRedis({ url: redisUrl, connectionName: "bench-data-iterate", commandTimeoutMs: 10_000 });
const ready = (url: string, what: string) =>
  waitFor(async () => (await fetch(url).catch(() => undefined))?.status === 200, { what, timeoutMs: 60_000 });

try {
  const key = JSON.parse(
    await authCli(
      "dist",
      ["keys", "create", "--name", "bench-data", "--scopes", "data:read", "--tier", "unlimited", "--json"],
      { AUTH_ADMIN_GRPC_TARGET: authTarget },
    ),
  ) as { id: string; secret: string };
  // Access tokens live 15 minutes: a fresh one for every iteration.
  const authorization = async () => {
    const issued = await fetch(`${stack.descriptor.gatewayUrl}/auth`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }),
    });
    return { authorization: `Bearer ${((await issued.json()) as { access_token: string }).access_token}` };
  };
  const headers = await authorization();
  process.stdout.write("seeding…\n");
  const { address, netuid } = await seedAccountActivity(stack, 300);
  const all = benchRoutes(address, netuid);
  for (const route of all) {
    await waitFor(
      async () => {
        const response = await fetch(`${stack.descriptor.gatewayUrl}${route.path}`, { headers });
        return response.status === 200 && route.populated((await response.json()) as never);
      },
      { what: route.name, timeoutMs: 120_000, intervalMs: 500 },
    );
  }
  process.stdout.write(`ready; write ${join(control, "go")} to measure\n`);

  for (let iteration = 1; !existsSync(join(control, "stop")); iteration += 1) {
    while (!existsSync(join(control, "go")) && !existsSync(join(control, "stop"))) await sleep(500);
    if (existsSync(join(control, "stop"))) break;
    const settings = Object.fromEntries(
      readFileSync(join(control, "go"), "utf8")
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line.includes("="))
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    ) as Record<string, string>;
    try {
      await measureOnce(iteration, settings, all, await authorization());
    } catch (error) {
      process.stdout.write(`iteration ${iteration} failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    }
    renameSync(join(control, "go"), join(control, `done-${iteration}`));
  }
} finally {
  await redis.quit().catch(() => redis.disconnect());
  await stack.stop();
  state.remove();
  rmSync(join(control, "stop"), { force: true });
}

async function measureOnce(
  iteration: number,
  settings: Record<string, string>,
  all: BenchRoute[],
  headers: Record<string, string>,
): Promise<void> {
  const { routes, seconds, rounds, connections, profileDir, variants } = iterationSettings(settings, all);
  const infra = {
    ...stack.descriptor.infrastructure,
    chainsFile: join(state.path, "chains.json"),
    secretsDir: join(state.path, "secrets"),
  };
  const specs = serviceProcessSpecs(ports, infra, "warn");
  const dataQuery = specs.find((spec) => spec.name === "data-query")!;
  const gateway = specs.find((spec) => spec.name === "gateway")!;
  const started: ManagedProcess[] = [];
  const spawn = (name: "data-query" | "gateway", label: string, env: Record<string, string>) => {
    const { command, args } = serviceCommand(repoRoot, name, "dist");
    const profile = profileDir
      ? [
          "--cpu-prof",
          `--cpu-prof-dir=${profileDir}`,
          `--cpu-prof-name=${name}-${label}-${iteration}-${Date.now()}.cpuprofile`,
        ]
      : [];
    const handle = spawnManaged({
      name: `${name}-${label}-${iteration}`,
      command,
      args: [...profile, ...args],
      cwd: repoRoot,
      logFile: join(state.path, "logs", `${name}-${label}-${iteration}.log`),
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", ...env },
    });
    started.push(handle);
    return handle;
  };
  try {
    const processes: Record<string, number> = { bench: process.pid, redis: stack.processes.get("redis")!.pid };
    const sides: MeasuredSide[] = [];
    for (const [index, variant] of variants.entries()) {
      const label = variants.length === 1 ? "gw" : `v${index}`;
      const own = await freePorts();
      const dataQueryTarget = `127.0.0.1:${own.dataQueryGrpc}`;
      const dq = spawn("data-query", label, {
        ...dataQuery.env,
        GRPC_PORT: String(own.dataQueryGrpc),
        OPS_PORT: String(own.dataQueryOps),
        ...variant,
      });
      const gw = spawn("gateway", label, {
        ...gateway.env,
        HTTP_PORT: String(own.gateway),
        PUBLIC_BASE_URL: `http://127.0.0.1:${own.gateway}`,
        DATA_ACCOUNTS_GRPC_TARGET: dataQueryTarget,
        DATA_MARKET_GRPC_TARGET: dataQueryTarget,
        DATA_SUBNETS_GRPC_TARGET: dataQueryTarget,
        ...variant,
      });
      processes[`${label}:gateway`] = gw.pid;
      processes[`${label}:data-query`] = dq.pid;
      await ready(`http://127.0.0.1:${own.gateway}/readyz`, `the fresh gateway ${label}`);
      sides.push({ side: label, url: `http://127.0.0.1:${own.gateway}`, headers });
    }
    const baselinePort = (await freePorts()).gateway;
    const baseline = spawnManaged({
      name: `data-baseline-${iteration}`,
      command: process.execPath,
      args: ["--conditions=@platform/source", "--import", "tsx", join(repoRoot, "bench", "data", "baseline.ts")],
      cwd: repoRoot,
      logFile: join(state.path, "logs", `data-baseline-${iteration}.log`),
      env: {
        PATH: process.env.PATH,
        NODE_ENV: "production",
        REDIS_URL: redisUrl,
        HTTP_PORT: String(baselinePort),
        LOG_LEVEL: "warn",
        ...variants[0],
      },
    });
    started.push(baseline);
    processes.baseline = baseline.pid;
    await ready(`http://127.0.0.1:${baselinePort}/readyz`, "the fresh baseline");
    sides.unshift({ side: "baseline", url: `http://127.0.0.1:${baselinePort}` });
    for (const side of sides) {
      for (const route of routes) {
        const response = await fetch(`${side.url}${route.path}`, side.headers ? { headers: side.headers } : {});
        if (response.status !== 200)
          throw new Error(`${side.side} ${route.path}: ${response.status} ${(await response.text()).slice(0, 300)}`);
      }
    }
    const rows = await measureRoutes(routes, sides, processes, {
      connections,
      seconds,
      rounds,
      warmUpSeconds: Number(settings.WARMUP ?? 2),
    });
    process.stdout.write(
      `\niteration ${iteration} (${JSON.stringify(settings)}; ${variants.map((variant, index) => `v${index}=${JSON.stringify(variant)}`).join(" ")})\n${table(rows)}\n\n`,
    );
  } finally {
    for (const handle of started.reverse()) await handle.stop();
  }
}

/** What the `go` file asks for: the routes, the load, the profile folder and the variants. */
function iterationSettings(settings: Record<string, string>, all: BenchRoute[]) {
  const routesSetting = settings.ROUTES ?? "headline";
  const routes =
    routesSetting === "all"
      ? all
      : routesSetting === "headline"
        ? all.filter((route) => route.headline)
        : routesSetting.split(",").flatMap((group) => all.filter((route) => route.group === group));
  const seconds = Number(settings.SECONDS ?? 3);
  const rounds = Number(settings.ROUNDS ?? 2);
  const connections = (settings.CONNECTIONS ?? "32").split(",").map(Number);
  const profileDir = settings.PROFILE;
  // VARIANTS=A=1|A=0: one gateway and data-query pair per variant, each with these extra variables.
  const variants = (settings.VARIANTS ?? "").split("|").map((text) =>
    Object.fromEntries(
      text
        .split(",")
        .filter((pair) => pair.includes("="))
        .map((pair) => pair.split("=") as [string, string]),
    ),
  );
  return { routes, seconds, rounds, connections, profileDir, variants };
}

/** A fresh process pair (or the baseline) under measurement. */
interface MeasuredSide {
  side: string;
  url: string;
  headers?: Record<string, string>;
}

/** Warms every side up, then measures each route at each connection count: one table row per side. */
async function measureRoutes(
  routes: BenchRoute[],
  sides: MeasuredSide[],
  processes: Record<string, number>,
  load: { connections: number[]; seconds: number; rounds: number; warmUpSeconds: number },
): Promise<Array<Record<string, string | number>>> {
  const { connections, seconds, rounds } = load;
  const targetsOf = (route: BenchRoute): Target[] =>
    sides.map((side) => ({
      side: side.side as Side,
      url: `${side.url}${route.path}`,
      ...(side.headers ? { headers: side.headers } : {}),
    }));
  await warmUp(routes.flatMap(targetsOf), 32, load.warmUpSeconds);
  const rows: Array<Record<string, string | number>> = [];
  for (const route of routes) {
    for (const count of connections) {
      const samples = await measureRotating({
        targets: targetsOf(route),
        connections: count,
        seconds,
        rounds,
        redis,
        processes,
      });
      for (const side of sides) {
        const mine = samples.filter((sample) => sample.side === side.side);
        const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
        const cpu = (name: string) => mean(mine.map((sample) => sample.cpuMicrosPerRequest[name] ?? Number.NaN));
        const serving =
          side.side === "baseline"
            ? cpu("baseline") + cpu("redis")
            : cpu(`${side.side}:gateway`) + cpu(`${side.side}:data-query`) + cpu("redis");
        rows.push({
          route: side.side === "baseline" ? `${route.name} @${count}` : "",
          side: side.side,
          "req/s": mean(mine.map((sample) => sample.requestsPerSecond)).toFixed(0),
          "req/s each": mine.map((sample) => sample.requestsPerSecond.toFixed(0)).join(" "),
          p50: mean(mine.map((sample) => sample.p50Ms)).toFixed(1),
          p99: mean(mine.map((sample) => sample.p99Ms)).toFixed(1),
          "gw µs": side.side === "baseline" ? cpu("baseline").toFixed(0) : cpu(`${side.side}:gateway`).toFixed(0),
          "gw µs each": mine
            .map((sample) =>
              (sample.cpuMicrosPerRequest[side.side === "baseline" ? "baseline" : `${side.side}:gateway`] ?? 0).toFixed(
                0,
              ),
            )
            .join(" "),
          "dq µs": side.side === "baseline" ? "" : cpu(`${side.side}:data-query`).toFixed(0),
          "redis µs": cpu("redis").toFixed(0),
          "serving µs": serving.toFixed(0),
          "redis cmds": mean(mine.map((sample) => sample.redisCommandsPerRequest)).toFixed(1),
          errors: mine.reduce((sum, sample) => sum + sample.failures, 0),
          load: mean(mine.map((sample) => sample.loadAverage)).toFixed(1),
        });
      }
    }
  }
  return rows;
}
