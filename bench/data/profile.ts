import type { PortPlan, RunningStack } from "@platform/local-stack";
import { load } from "../src/load.js";
import { type ServingPair, startServingPair } from "./servingPair.js";

/**
 * Diagnostics (BENCH_CPU_PROFILE=<dir>): a second gateway and data-query from dist, each with
 * --cpu-prof, beside the stack's own; `paths` are loaded through them one after the other, then
 * both stop and V8 writes their CPU profiles into `dir` (open them in Chrome DevTools, or summarise
 * with profileSummary.ts).
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
 * Runs `work` against a profiled gateway (its base URL; both pids) in front of a profiled data-query, both on
 * the stack's Redis, NATS and other backends (servingPair.ts), then stops both so V8 writes their
 * profiles.
 */
export async function withProfiledPair(
  options: ProfiledPairOptions,
  work: (base: string, pids: ServingPair["pids"]) => Promise<void>,
): Promise<void> {
  const pair = await startServingPair({
    stack: options.stack,
    ports: options.ports,
    stateDir: options.stateDir,
    name: "profiled",
    ...(options.env === undefined ? {} : { env: options.env }),
    nodeArgs: (name) => [
      "--cpu-prof",
      `--cpu-prof-dir=${options.dir}`,
      `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`,
    ],
  });
  try {
    await work(pair.baseUrl, pair.pids);
  } finally {
    // SIGTERM: both shut down cleanly and V8 writes the profiles on exit.
    await pair.stop();
  }
  process.stdout.write(`CPU profiles of the gateway and data-query written to ${options.dir}\n`);
}
