/**
 * What the failover guarantee costs per commit (issue 34, point 2): a projection commit as the
 * projector makes it (WATCH the offset, GET it, MULTI with the batch's writes, the offset and the
 * version token, EXEC), then WAIT for one replica (libs/store waitForReplicas), against the same
 * commit without the WAIT, in the same run, on real servers: a Redis Cluster of 3 primaries with a
 * replica each (startRedisCluster), and a standalone primary with one replica.
 *
 *   pnpm --silent build && (cd bench && pnpm store-wait)
 *
 * Rounds alternate the two sides so that load from elsewhere falls on both. Prints per-commit
 * latency (median, p99) and commits per second of each side, and with-WAIT ÷ without.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { DATA_TAG } from "@platform/read-models";
import { createRedis, type Redis, redisReadiness, waitForReplicas } from "@platform/store";
import { startRedis, startRedisCluster, tempDir, waitFor } from "@platform/testing";
import { table } from "../src/load.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const COMMITS_PER_ROUND = Number(process.env.BENCH_COMMITS ?? 400);
/** Writes per commit besides the offset and the version: a block's pool points for a few dozen subnets. */
const WRITES_PER_COMMIT = Number(process.env.BENCH_WRITES ?? 32);

interface Side {
  name: string;
  wait: boolean;
  latenciesMs: number[];
  elapsedMs: number;
  commits: number;
}

const tag = DATA_TAG;
const offsetKey = `rm:${tag}:bench:offset:0`;
const versionKey = `rm:${tag}:bench:version`;

async function commit(redis: Redis, offset: number, wait: boolean): Promise<void> {
  await redis.watch(offsetKey);
  const stored = await redis.get(offsetKey);
  if (stored !== (offset === 0 ? null : String(offset - 1))) throw new Error(`offset ${stored} before ${offset}`);
  const multi = redis.multi();
  for (let write = 0; write < WRITES_PER_COMMIT; write++)
    multi.zadd(`rm:${tag}:bench:points:${write}`, offset, `${offset}:${write}`);
  multi.set(offsetKey, String(offset));
  multi.set(versionKey, String(offset));
  const result = await multi.exec();
  if (result === null || result.some(([error]) => error !== null)) throw new Error("commit failed");
  if (wait) {
    const ack = await waitForReplicas(redis, offsetKey, { replicas: 1, timeoutMs: 1_000 });
    if (ack.acknowledged < 1) throw new Error("no replica acknowledged within 1 s");
  }
}

async function measure(topology: string, redis: Redis): Promise<Array<Record<string, string | number>>> {
  await redis.del(offsetKey);
  const sides: Side[] = [
    { name: "EXEC only", wait: false, latenciesMs: [], elapsedMs: 0, commits: 0 },
    { name: "EXEC + WAIT 1", wait: true, latenciesMs: [], elapsedMs: 0, commits: 0 },
  ];
  let offset = 0;
  // A warm-up round of each, not counted.
  for (const side of sides) for (let n = 0; n < 50; n++) await commit(redis, offset++, side.wait);
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const started = performance.now();
      for (let n = 0; n < COMMITS_PER_ROUND; n++) {
        const before = performance.now();
        await commit(redis, offset++, side.wait);
        side.latenciesMs.push(performance.now() - before);
      }
      side.elapsedMs += performance.now() - started;
      side.commits += COMMITS_PER_ROUND;
    }
  }
  const [base, waited] = sides as [Side, Side];
  const row = (side: Side) => ({
    topology,
    side: side.name,
    "median ms": quantile(side.latenciesMs, 0.5).toFixed(3),
    "p99 ms": quantile(side.latenciesMs, 0.99).toFixed(3),
    "commits/s": Math.round((side.commits / side.elapsedMs) * 1_000),
    "÷ EXEC only (median)": (quantile(side.latenciesMs, 0.5) / quantile(base.latenciesMs, 0.5)).toFixed(2),
  });
  return [row(base), row(waited)];
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

const dir = tempDir("bench-replica-wait");
const cluster = await startRedisCluster({ dir: join(dir.path, "cluster"), logDir: join(dir.path, "logs") });
const primary = await startRedis({ dir: join(dir.path, "primary"), logFile: join(dir.path, "logs", "primary.log") });
const replica = await startRedis({ dir: join(dir.path, "replica"), logFile: join(dir.path, "logs", "replica.log") });
execFileSync("redis-cli", ["-p", String(replica.port), "REPLICAOF", "127.0.0.1", String(primary.port)]);
const clusterClient = createRedis({ mode: "cluster", nodes: cluster.nodeList.split(","), connectionName: "bench" });
const standalone = createRedis({ url: primary.url, connectionName: "bench" });
try {
  await waitFor(() => redisReadiness(clusterClient), { what: "cluster client ready", timeoutMs: 30_000 });
  await waitFor(() => redisReadiness(standalone), { what: "primary ready", timeoutMs: 30_000 });
  await waitFor(
    async () =>
      execFileSync("redis-cli", ["-p", String(replica.port), "INFO", "replication"], { encoding: "utf8" }).includes(
        "master_link_status:up",
      ),
    { what: "replica in sync", timeoutMs: 30_000 },
  );
  console.log(
    `${ROUNDS} rounds of ${COMMITS_PER_ROUND} commits per side, ${WRITES_PER_COMMIT} ZADDs + offset + version per commit`,
  );
  const rows = [
    ...(await measure("standalone + 1 replica", standalone)),
    ...(await measure("cluster 3+3", clusterClient)),
  ];
  console.log(table(rows));
} finally {
  clusterClient.disconnect();
  standalone.disconnect();
  await Promise.all([cluster.stop(), primary.stop(), replica.stop()]);
  dir.remove();
}
