import { join } from "node:path";
import {
  freePorts,
  repoRoot,
  serviceCommand,
  serviceProcessSpecs,
  type PortPlan,
  type RunningStack,
} from "@platform/local-stack";
import { spawnManaged, waitFor, type ManagedProcess } from "@platform/testing";
import { load } from "../src/load.js";

/**
 * Diagnostics (BENCH_CPU_PROFILE=<dir>): a second gateway and data-query from dist, each with
 * --cpu-prof, beside the stack's own; `paths` are loaded through them one after the other, then
 * both stop and V8 writes their CPU profiles into `dir` (open them in Chrome DevTools, or summarise
 * with profileSummary.ts). The stack's processes cannot take the flag: their command line is fixed.
 */
export async function profileGatewayPath(
  options: ProfiledPairOptions & {
    paths: string[];
    headers: Record<string, string>;
    connections: number;
    seconds: number;
  },
): Promise<void> {
  await withProfiledPair(options, async (base) => {
    for (const path of options.paths) {
      const result = await load({
        url: `${base}${path}`,
        headers: options.headers,
        connections: options.connections,
        durationSeconds: options.seconds,
      });
      process.stdout.write(
        `profiled ${path}: ${result.requestsPerSecond.toFixed(0)} req/s, ${result.total} requests, ${result.failures} failures\n`,
      );
    }
  });
}

export interface ProfiledPairOptions {
  stack: RunningStack;
  /** The stack's port plan: the profiled gateway calls the stack's auth, tc and intents. */
  ports: PortPlan;
  stateDir: string;
  /** Where V8 writes the two profiles. */
  dir: string;
  /** More environment for both (OTEL_* to profile them tracing). */
  env?: Record<string, string>;
}

/**
 * Runs `work` against a profiled gateway (its base URL) in front of a profiled data-query, both on
 * the stack's Redis, NATS and other backends, then stops both so V8 writes their profiles.
 */
export async function withProfiledPair(
  options: ProfiledPairOptions,
  work: (base: string) => Promise<void>,
): Promise<void> {
  const { stack, stateDir } = options;
  const own = await freePorts();
  const infra = {
    ...stack.descriptor.infrastructure,
    chainsFile: join(stateDir, "chains.json"),
    secretsDir: join(stateDir, "secrets"),
  };
  const specs = serviceProcessSpecs(options.ports, infra, "warn");
  const dataQuery = specs.find((spec) => spec.name === "data-query")!;
  const gateway = specs.find((spec) => spec.name === "gateway")!;
  const dataQueryTarget = `127.0.0.1:${own.dataQueryGrpc}`;
  const started: ManagedProcess[] = [];
  const spawn = (name: "data-query" | "gateway", env: Record<string, string>) => {
    const { command, args } = serviceCommand(repoRoot, name, "dist");
    started.push(
      spawnManaged({
        name: `${name}-profiled`,
        command,
        args: [
          "--cpu-prof",
          `--cpu-prof-dir=${options.dir}`,
          `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`,
          ...args,
        ],
        cwd: repoRoot,
        logFile: join(stateDir, "logs", `${name}-profiled.log`),
        env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", ...env, ...options.env },
      }),
    );
  };
  try {
    spawn("data-query", { ...dataQuery.env, GRPC_PORT: String(own.dataQueryGrpc), OPS_PORT: String(own.dataQueryOps) });
    spawn("gateway", {
      ...gateway.env,
      HTTP_PORT: String(own.gateway),
      OPS_PORT: String(own.gatewayOps),
      PUBLIC_BASE_URL: `http://127.0.0.1:${own.gateway}`,
      DATA_ACCOUNTS_GRPC_TARGET: dataQueryTarget,
      DATA_MARKET_GRPC_TARGET: dataQueryTarget,
      DATA_SUBNETS_GRPC_TARGET: dataQueryTarget,
    });
    const base = `http://127.0.0.1:${own.gateway}`;
    await waitFor(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200, {
      what: "the profiled gateway",
      timeoutMs: 60_000,
    });
    await work(base);
  } finally {
    // SIGTERM: both shut down cleanly and V8 writes the profiles on exit.
    for (const handle of started.reverse()) await handle.stop();
  }
  process.stdout.write(`CPU profiles of the gateway and data-query written to ${options.dir}\n`);
}
