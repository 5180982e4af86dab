import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import type { Redis } from "@platform/store";
import { type LoadResult, load } from "../src/load.js";

/**
 * The express baseline, the gateway, and (BENCH_NODE_BASELINE=1) the same baseline on
 * node:http; BENCH_TRACING=1 also gateway + data-query pairs with tracing off and on (tracingOverhead.ts).
 */
export type Side = "baseline" | "gateway" | "node-baseline";
export type MeasuredSide = Side | "tracing-off" | "tracing-on";

export interface Sample extends LoadResult {
  side: MeasuredSide;
  round: number;
  /** The machine's 1-minute load average when the round ended (other work shares the 2 cores). */
  loadAverage: number;
  /**
   * Redis commands processed during the round per request answered (less the idle rate measured
   * just before): the read model's reads, plus on the gateway the rate-limit script, which counts
   * as 5 (EVALSHA and the 4 commands it runs). Approximate: the projector's writes vary.
   */
  redisCommandsPerRequest: number;
  /** CPU time (user + system) each watched process spent during the round, less its idle rate, per request answered, in µs. */
  cpuMicrosPerRequest: Record<string, number>;
}

export interface Target {
  side: MeasuredSide;
  url: string;
  headers?: Record<string, string>;
}

/** Redis's count of commands processed so far (INFO stats). */
async function commandsProcessed(redis: Redis): Promise<number> {
  const match = /total_commands_processed:(\d+)/.exec(await redis.info("stats"));
  return match === null ? Number.NaN : Number(match[1]);
}

/** Linux clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on every common build). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far; NaN when it is gone or not on Linux. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

export const cpuOf = (processes: Record<string, number>) =>
  Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuSeconds(pid)]));

const IDLE_SAMPLE_MS = 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Activity {
  elapsedMs: number;
  /** Redis commands processed meanwhile, less the first INFO call (counted once it has answered). */
  commands: number;
  /** CPU seconds each watched process used meanwhile. */
  cpu: Record<string, number>;
}

/** How much Redis and the watched processes worked while `during` ran. */
async function activity(
  redis: Redis,
  processes: Record<string, number>,
  during: () => Promise<unknown>,
): Promise<Activity> {
  const commandsBefore = await commandsProcessed(redis);
  const cpuBefore = cpuOf(processes);
  const started = performance.now();
  await during();
  const elapsedMs = performance.now() - started;
  const cpuAfter = cpuOf(processes);
  const commandsAfter = await commandsProcessed(redis);
  return {
    elapsedMs,
    commands: commandsAfter - commandsBefore - 1,
    cpu: Object.fromEntries(Object.keys(processes).map((name) => [name, cpuAfter[name]! - cpuBefore[name]!])),
  };
}

/**
 * Loads each target for `seconds` at `connections`, one after the other. The stack's gateway and
 * data-query have served only probes before the bench starts, and code paths shared by the routes
 * (express, grpc-js, ioredis, protobuf) get hot across them: a pass over every route before any is
 * measured keeps the first route measured from paying for the process's early life (JIT tiers,
 * heap growth); with 1 s per route the first route still read up to 2.5× the CPU per request.
 */
export async function warmUp(targets: Target[], connections: number, seconds: number): Promise<void> {
  for (const target of targets)
    await load({
      url: target.url,
      ...(target.headers ? { headers: target.headers } : {}),
      connections,
      durationSeconds: seconds,
    });
}

export interface MeasureOptions {
  targets: readonly Target[];
  connections: number;
  seconds: number;
  rounds: number;
  redis: Redis;
  processes: Record<string, number>;
}

const loadTarget = (target: Target, connections: number, durationSeconds: number) =>
  load({ url: target.url, ...(target.headers ? { headers: target.headers } : {}), connections, durationSeconds });

/**
 * What the watched processes and Redis do with no load (projector writes, readiness probes, the
 * simulator's blocks), measured right before the rounds and taken out of the per-request figures:
 * `perRequest(busy, total)` turns a round's activity into its figures per request answered.
 */
async function idleBaseline(redis: Redis, processes: Record<string, number>) {
  const idle = await activity(redis, processes, () => sleep(IDLE_SAMPLE_MS));
  const idleRate = (delta: number) => delta / (idle.elapsedMs / 1_000);
  return {
    perRequest(busy: Activity, total: number) {
      const per = (busyDelta: number, idleDelta: number, scale: number) =>
        total === 0
          ? Number.NaN
          : (Math.max(0, busyDelta - idleRate(idleDelta) * (busy.elapsedMs / 1_000)) * scale) / total;
      return {
        redisCommandsPerRequest: per(busy.commands, idle.commands, 1),
        cpuMicrosPerRequest: Object.fromEntries(
          Object.keys(processes).map((name) => [name, per(busy.cpu[name]!, idle.cpu[name]!, 1e6)]),
        ),
      };
    },
  };
}

/**
 * Loads each target in turn, `rounds` times each; the order rotates by one every round, so drift in
 * what else the shared machine does falls on every target alike (warm them up first: warmUp).
 * run.ts measures its two or three sides so; data/iterate.ts also A/B variants of the gateway.
 */
export async function measureRotating(options: MeasureOptions): Promise<Sample[]> {
  const { connections, seconds, redis } = options;
  const idle = await idleBaseline(redis, options.processes);
  const samples: Sample[] = [];
  const count = options.targets.length;
  for (let round = 0; round < options.rounds; round += 1) {
    const order = options.targets.map((_target, index) => options.targets[(index + round) % count]!);
    for (const target of order) {
      let result: LoadResult | undefined;
      const busy = await activity(redis, options.processes, async () => {
        result = await loadTarget(target, connections, seconds);
      });
      samples.push({
        ...result!,
        side: target.side,
        round,
        loadAverage: loadavg()[0]!,
        ...idle.perRequest(busy, result!.total),
      });
    }
  }
  return samples;
}

/**
 * Loads every target at once, `connections` each, for `seconds`, `rounds` times: an A/B of two
 * variants of one server on the same shared cores. Whatever else the machine does (a block's burst
 * of work, the drift over minutes) falls on both during the same seconds, so their throughput ratio
 * within a round says how much more work one needs per request, which rotating rounds (one after
 * the other) blur by ± 5–10 % here. Redis is shared, so its commands per request are not split.
 */
export async function measureTogether(options: MeasureOptions): Promise<Sample[]> {
  const { connections, seconds, redis } = options;
  const idle = await idleBaseline(redis, options.processes);
  const samples: Sample[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    const results: LoadResult[] = [];
    const busy = await activity(redis, options.processes, async () => {
      results.push(...(await Promise.all(options.targets.map((target) => loadTarget(target, connections, seconds)))));
    });
    options.targets.forEach((target, index) => {
      const result = results[index]!;
      samples.push({
        ...result,
        side: target.side,
        round,
        loadAverage: loadavg()[0]!,
        ...idle.perRequest(busy, result.total),
        redisCommandsPerRequest: Number.NaN,
      });
    });
  }
  return samples;
}
