// bench/data, what the per-service credentials cost on the realistic mix (issue 32, item 7:
// "credentials must not cost throughput"). Two fresh pairs of gateway and data-query from dist
// beside the stack's own (servingPair.ts), identical but for the users they connect to Redis and
// NATS as: one as each service's own user, whose grant (key patterns, commands, channels) Redis
// and NATS check on every command; one as the stack's `admin` (every key, command and subject), the
// nearest this stack comes to the servers without users, which it no longer runs. Kafka's SCRAM
// users are not on this path: the Data API's reads never touch Kafka.
//
//   pnpm --silent build && (cd bench && pnpm data-credentials)
//
// Each round loads both pairs at once with the mix (mix.ts), `connections` each, for one block time:
// whatever else the two shared cores do (a block's ingestion and projection, the drift over
// minutes) falls on both in the same seconds, so the ratio within a round says how much more work
// one needs per answer; rotating rounds blur it by ± 5–10 % on this machine (measure.ts,
// measureTogether). BENCH_CREDENTIALS_AA=1 runs two own-user pairs: the method's own spread.
// BENCH_OTHER_TREE=<dir> compares this tree with another built checkout instead (both on their own
// users), e.g. `git worktree add /tmp/before <commit> && (cd /tmp/before && pnpm install --offline
// && pnpm --silent build)`: what a change costs the mix, in the same run.
// Prints req/s, p99 and CPU per answer of each pair, the ratios (this pair ÷ the other; target
// within 5 %), and writes bench/results/data-credentials-<time>.json.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { repoRoot } from "@platform/local-stack";
import { table } from "../src/load.js";
import { cpuOf } from "./measure.js";
import { buildMix, type Mix } from "./mix.js";
import { loadMix, type MixLoadResult } from "./mixLoad.js";
import { mixSubjects } from "./mixSubjects.js";
import { seedAccountActivity } from "./seed.js";
import { type ServingPair, startServingPair } from "./servingPair.js";
import { authorization, createDataKey, startBenchStack } from "./stackSetup.js";

const BLOCK_MS = Number(process.env.BENCH_MIX_BLOCK_MS ?? 12_000);
const PRICE_MS = Number(process.env.BENCH_MIX_PRICE_MS ?? 30_000);
/** One block time per round, so every round meets one block's burst of change signals, on both pairs. */
const ROUND_MS = Number(process.env.BENCH_MIX_ROUND_MS ?? BLOCK_MS);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "32,128").split(",").map(Number);
const WARM_UP_REQUESTS = Number(process.env.BENCH_WARMUP_REQUESTS ?? 10_000);
const AA = process.env.BENCH_CREDENTIALS_AA === "1";
const OTHER_TREE = process.env.BENCH_OTHER_TREE;
/** The issue's bound: own users within 5 % of admin on throughput and on p99. */
const WITHIN = 0.05;
const ACCOUNTS = 10_000;
const TRANSFERS = 300;

type Side = "own-users" | "admin";
interface Sample extends MixLoadResult {
  side: Side;
  connections: number;
  round: number;
  /** CPU µs per answer of the pair's gateway and data-query. */
  cpuMicrosPerAnswer: { gateway: number; "data-query": number };
}

const startedAt = Date.now();
const loadAtStart = loadavg();
const bench = await startBenchStack("bench-data-credentials", {
  nativeBlockTimeMs: BLOCK_MS,
  priceIntervalMs: PRICE_MS,
});
const pairs: ServingPair[] = [];
try {
  const { stack } = bench;
  const key = await createDataKey(stack, "bench-data-credentials");
  process.stdout.write(`seeding ${TRANSFERS} transfers to a seeded coldkey and waiting for the read models…\n`);
  const seeded = await seedAccountActivity(stack, TRANSFERS);
  const headers = await authorization(bench.gatewayUrl, key);
  const subjects = await mixSubjects({
    stack,
    gatewayUrl: bench.gatewayUrl,
    subject: seeded.address,
    headers,
    accounts: ACCOUNTS,
  });
  const mix = buildMix({
    accounts: subjects.accounts,
    netuids: subjects.netuids,
    blocks: [],
    length: Math.ceil(ROUND_MS * 25) + WARM_UP_REQUESTS,
    seed: 17,
    exponent: 1,
    conditionalShare: 0.2,
  });
  const sides = await startPairs();
  process.stdout.write(`warming up both pairs on the mix (its first ${WARM_UP_REQUESTS} requests each, at once)…\n`);
  await Promise.all(
    Object.values(sides).map((pair) =>
      loadMix({ baseUrl: pair.baseUrl, headers, mix, connections: 32, requests: WARM_UP_REQUESTS }),
    ),
  );
  const samples = await measure(sides, mix, await authorization(bench.gatewayUrl, key));
  report(samples, subjects.netuids);
} finally {
  for (const pair of pairs.reverse()) await pair.stop();
  await bench.stop();
}

/** The two pairs: own users, and admin (own users again for the A/A calibration; another tree's build with BENCH_OTHER_TREE). */
async function startPairs(): Promise<Record<Side, ServingPair>> {
  const secrets = join(bench.statePath, "secrets");
  const password = (secret: string) => readFileSync(join(secrets, secret, "password"), "utf8");
  const admin = {
    REDIS_USERNAME: "admin",
    REDIS_PASSWORD: password("admin-redis"),
    NATS_USERNAME: "admin",
    NATS_PASSWORD: password("admin-nats"),
  };
  const options = { stack: bench.stack, ports: bench.ports, stateDir: bench.statePath };
  const own = await startServingPair({ ...options, name: "own-users" });
  pairs.push(own);
  const other =
    OTHER_TREE !== undefined
      ? await startServingPair({ ...options, name: "other-tree", root: OTHER_TREE })
      : await startServingPair({ ...options, name: AA ? "own-users-2" : "admin", env: AA ? {} : admin });
  pairs.push(other);
  return { "own-users": own, admin: other };
}

async function measure(sides: Record<Side, ServingPair>, mix: Mix, headers: Record<string, string>) {
  const redisPid = bench.stack.processes.get("redis")!.pid;
  const processes = {
    "own-users gateway": sides["own-users"].pids.gateway,
    "own-users data-query": sides["own-users"].pids["data-query"],
    "admin gateway": sides.admin.pids.gateway,
    "admin data-query": sides.admin.pids["data-query"],
    redis: redisPid,
  };
  const samples: Sample[] = [];
  for (const connections of CONNECTIONS) {
    for (let round = 0; round < ROUNDS; round += 1) {
      process.stdout.write(`${connections} connections each, round ${round + 1} of ${ROUNDS}: both pairs at once…\n`);
      const before = cpuOf(processes);
      const [own, admin] = await Promise.all(
        (["own-users", "admin"] as const).map((side) =>
          loadMix({ baseUrl: sides[side].baseUrl, headers, mix, connections, durationMs: ROUND_MS }),
        ),
      );
      const after = cpuOf(processes);
      const cpu = (name: keyof typeof processes, answers: number) => ((after[name]! - before[name]!) * 1e6) / answers;
      for (const [side, result] of [
        ["own-users", own!],
        ["admin", admin!],
      ] as const)
        samples.push({
          ...result,
          side,
          connections,
          round,
          cpuMicrosPerAnswer: {
            gateway: cpu(`${side} gateway`, result.total),
            "data-query": cpu(`${side} data-query`, result.total),
          },
        });
    }
  }
  return samples;
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Per connection count: each pair's figures, and own ÷ admin as the median of the rounds' ratios. */
function figuresOf(samples: Sample[]) {
  return CONNECTIONS.map((connections) => {
    const at = samples.filter((sample) => sample.connections === connections);
    const of = (side: Side) => at.filter((sample) => sample.side === side);
    const mean = (side: Side, pick: (sample: Sample) => number) =>
      of(side).reduce((sum, sample) => sum + pick(sample), 0) / of(side).length;
    const roundRatio = (pick: (sample: Sample) => number) =>
      median(of("own-users").map((own) => pick(own) / pick(of("admin").find((admin) => admin.round === own.round)!)));
    const throughputRatio = roundRatio((sample) => sample.requestsPerSecond);
    const p99Ratio = roundRatio((sample) => sample.p99Ms);
    return {
      connections,
      ownRequestsPerSecond: mean("own-users", (sample) => sample.requestsPerSecond),
      adminRequestsPerSecond: mean("admin", (sample) => sample.requestsPerSecond),
      ownP99Ms: mean("own-users", (sample) => sample.p99Ms),
      adminP99Ms: mean("admin", (sample) => sample.p99Ms),
      throughputRatio,
      p99Ratio,
      roundThroughputRatios: of("own-users").map(
        (own) => own.requestsPerSecond / of("admin").find((admin) => admin.round === own.round)!.requestsPerSecond,
      ),
      ownCpuMicros: mean("own-users", (s) => s.cpuMicrosPerAnswer.gateway + s.cpuMicrosPerAnswer["data-query"]),
      adminCpuMicros: mean("admin", (s) => s.cpuMicrosPerAnswer.gateway + s.cpuMicrosPerAnswer["data-query"]),
      failures: at.reduce((sum, sample) => sum + sample.failures, 0),
      within: throughputRatio >= 1 - WITHIN && p99Ratio <= 1 + WITHIN,
    };
  });
}

function report(samples: Sample[], netuids: number[]): void {
  const figures = figuresOf(samples);
  const rows = figures.map((figure) => ({
    conn: String(figure.connections),
    "own users req/s": figure.ownRequestsPerSecond.toFixed(0),
    "admin req/s": figure.adminRequestsPerSecond.toFixed(0),
    "req/s ratio (median round)": figure.throughputRatio.toFixed(3),
    "rounds' ratios": figure.roundThroughputRatios.map((ratio) => ratio.toFixed(3)).join(" "),
    "p99 own · admin ms": `${figure.ownP99Ms.toFixed(1)} · ${figure.adminP99Ms.toFixed(1)}`,
    "p99 ratio (median round)": figure.p99Ratio.toFixed(3),
    "CPU µs/answer own → admin": `${figure.ownCpuMicros.toFixed(0)} → ${figure.adminCpuMicros.toFixed(0)}`,
    failures: String(figure.failures),
    [`within ${WITHIN * 100} %`]: figure.within ? "yes" : "NO",
  }));
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(" ");
  process.stdout.write(
    `\nbench/data credentials — ${OTHER_TREE !== undefined ? `this tree ÷ ${OTHER_TREE} (the "admin" columns)` : AA ? "A/A calibration: two own-user pairs" : "own users ÷ admin"}, node ${process.version}, ${cpus().length} CPUs, ${ROUNDS} rounds of ${ROUND_MS / 1_000} s with both pairs loaded at once, a native block every ${BLOCK_MS / 1_000} s; load average ${load(loadAtStart)} at start, ${load(loadavg())} at end\n${table(rows)}\n\n`,
  );
  const dir = join(repoRoot, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `data-credentials-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  const settings = {
    aa: AA,
    otherTree: OTHER_TREE,
    blockMs: BLOCK_MS,
    priceMs: PRICE_MS,
    roundMs: ROUND_MS,
    rounds: ROUNDS,
  };
  writeFileSync(
    file,
    `${JSON.stringify({ node: process.version, cpus: cpus().length, ...settings, netuids, figures, samples }, null, 2)}\n`,
  );
  process.stdout.write(`figures written to ${file}; whole run ${((Date.now() - startedAt) / 1_000).toFixed(0)} s\n`);
}
