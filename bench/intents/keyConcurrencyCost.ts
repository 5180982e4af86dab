// bench/intents/keyConcurrencyCost: what a per-key limit shared by the replicas (a lease per call
// in Redis, libs/service sharedKeyConcurrency.ts) costs a call, against the per-replica limit
// (in memory, @platform/grpc createKeyConcurrency) measured in the same run, on a real Redis over
// loopback. Sequential calls (the added latency) and 32 at once over 32 keys (the throughput).
//
//   pnpm --filter @platform/bench key-concurrency-cost
//
// BENCH_CALLS (default 5,000) per figure, after 1,000 unmeasured.
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createKeyConcurrency, type KeyConcurrency } from "@platform/grpc";
import { sharedKeyConcurrency } from "@platform/service";
import { createRedis, redisReadiness } from "@platform/store";
import { startRedis, tempDir, waitFor } from "@platform/testing";
import { table } from "../src/load.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 5_000);
const WARMUP = 1_000;
const PARALLEL = 32;

const state = tempDir("bench-key-concurrency");
const server = await startRedis({ dir: join(state.path, "redis"), logFile: join(state.path, "redis.log") });
const redis = createRedis({ url: server.url, connectionName: "bench-key-concurrency" });
await waitFor(() => redisReadiness(redis), { what: "redis" });

const work = async () => undefined;

async function sequential(limit: KeyConcurrency): Promise<number> {
  for (let i = 0; i < WARMUP; i += 1) await limit.run("ak_bench", work);
  const from = performance.now();
  for (let i = 0; i < CALLS; i += 1) await limit.run("ak_bench", work);
  return ((performance.now() - from) * 1_000) / CALLS;
}

async function parallel(limit: KeyConcurrency): Promise<number> {
  const from = performance.now();
  await Promise.all(
    Array.from({ length: PARALLEL }, async (_, lane) => {
      for (let i = 0; i < CALLS / PARALLEL; i += 1) await limit.run(`ak_${lane}`, work);
    }),
  );
  return CALLS / ((performance.now() - from) / 1_000);
}

try {
  const local = createKeyConcurrency(4, "quotes");
  const shared = sharedKeyConcurrency({ redis, keyPrefix: "bench", limit: 4, what: "quotes" });
  // Alternated, so drift on a shared machine hits both alike.
  const localUs = [await sequential(local)];
  const sharedUs = [await sequential(shared)];
  localUs.push(await sequential(local));
  sharedUs.push(await sequential(shared));
  const localRate = await parallel(local);
  const sharedRate = await parallel(shared);
  shared.close();
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  process.stdout.write(`\nbench/intents/keyConcurrencyCost — ${CALLS} calls per figure, node ${process.version}\n\n`);
  process.stdout.write(
    `${table([
      {
        limit: "per replica, in memory (baseline)",
        "µs per call, one at a time": mean(localUs).toFixed(2),
        [`calls/s, ${PARALLEL} keys at once`]: localRate.toFixed(0),
      },
      {
        limit: "shared by the replicas, Redis lease",
        "µs per call, one at a time": mean(sharedUs).toFixed(2),
        [`calls/s, ${PARALLEL} keys at once`]: sharedRate.toFixed(0),
      },
    ])}\n\n`,
  );
  process.stdout.write(
    `added per call: ${(mean(sharedUs) - mean(localUs)).toFixed(1)} µs (two Redis round trips: take the slot, give it back)\n`,
  );
} finally {
  redis.disconnect();
  await server.stop();
  state.remove();
}
