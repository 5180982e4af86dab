// bench/auth/loginUnderFailures: POST /auth's credential check under failed logins (issue 42, item 2).
// IssueToken in process over a real Redis (services/auth/src/issue/issuerTestSupport.ts: no Kafka,
// no gRPC, no gateway), so what is measured is auth's own work and its Redis round trips:
//
//   1. a correct API_KEY login, quiet: the baseline;
//   2. the same login while the same address fails 1,000 times (at most 32 in flight, the default
//      policy's thresholds, its 2 s delay cap lowered to 200 ms so the run stays short): target
//      within 10 % of the baseline;
//   3. a failure with an unknown key id and one with a known id and a wrong secret, interleaved,
//      below any slow-down: their ratio is the timing difference an attacker could measure.
//
//   pnpm --filter @platform/bench auth-failures
//
// BENCH_SAMPLES (default 400) samples per figure, after BENCH_WARMUP (500) unmeasured; the quiet
// figure is taken half before and half after the failures, so drift hits both alike.
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createRedis, redisReadiness } from "@platform/store";
import { startRedis, tempDir, waitFor } from "@platform/testing";
import { newCredential } from "../../services/auth/src/credentials/credentialFormat.js";
import { issuerUnderTest } from "../../services/auth/src/issue/issuerTestSupport.js";
import type { LockoutPolicy } from "../../services/auth/src/issue/lockoutPolicy.js";
import { table } from "../src/load.js";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 400);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500);
const FAILURES = 1_000;
const IN_FLIGHT = 32;

const state = tempDir("bench-auth-failures");
const server = await startRedis({ dir: join(state.path, "redis"), logFile: join(state.path, "redis.log") });
const redis = createRedis({ url: server.url, connectionName: "bench-auth-failures" });
await waitFor(() => redisReadiness(redis), { what: "redis" });

const defaults: LockoutPolicy = { address: { slowAfter: 20, budget: 5_000 }, windowMs: 900_000, maxDelayMs: 200 };
// For the timing of known and unknown ids: nothing slowed or over budget.
const unbounded: LockoutPolicy = { ...defaults, address: { slowAfter: 1e9, budget: 1e9 } };

const apiKey = (keyId: string, secret: string, clientAddress: string) => ({
  grant: { $case: "apiKey" as const, value: { keyId, secret } },
  clientAddress,
  origin: "",
});
const deadline = () => Date.now() + 15_000;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const from = performance.now();
  await work().catch(() => undefined);
  return performance.now() - from;
}

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p90: at(0.9), mean: samples.reduce((sum, x) => sum + x, 0) / samples.length };
}

try {
  await redis.flushall();
  const bounded = issuerUnderTest(redis, defaults);
  const owner = await bounded.addKey();
  const address = "203.0.113.50";
  const login = () => bounded.issue(apiKey(owner.id, owner.secret, address), deadline());

  for (let i = 0; i < WARMUP; i += 1) await timed(login);
  const quiet: number[] = [];
  for (let i = 0; i < SAMPLES / 2; i += 1) quiet.push(await timed(login));

  // The same address fails 1,000 times (random ids and wrong secrets for the owner's id) while the owner logs in.
  let sent = 0;
  let failing = true;
  const attacker = async () => {
    while (sent < FAILURES) {
      sent += 1;
      const keyId = sent % 2 === 0 ? owner.id : newCredential("keyId");
      await bounded.issue(apiKey(keyId, newCredential("secret"), address), deadline()).catch(() => undefined);
    }
  };
  const attack = Promise.all(Array.from({ length: IN_FLIGHT }, attacker)).then(() => {
    failing = false;
  });
  const underAttack: number[] = [];
  while (failing || underAttack.length < SAMPLES) {
    underAttack.push(await timed(login));
    if (!failing && underAttack.length >= SAMPLES) break;
  }
  await attack;
  const failed = Number(await redis.get(`auth:fail:addr:${address}`));
  await redis.del(`auth:fail:addr:${address}`);
  for (let i = 0; i < SAMPLES / 2; i += 1) quiet.push(await timed(login));

  // Known and unknown ids, interleaved, from fresh addresses each round (no counter stands out).
  await redis.flushall();
  const open = issuerUnderTest(redis, unbounded);
  const known = await open.addKey();
  const unknownMs: number[] = [];
  const knownMs: number[] = [];
  for (let i = 0; i < WARMUP + SAMPLES; i += 1) {
    const from = `198.51.${Math.floor(i / 250)}.${i % 250}`;
    const unknown = await timed(() =>
      open.issue(apiKey(newCredential("keyId"), newCredential("secret"), from), deadline()),
    );
    const wrong = await timed(() => open.issue(apiKey(known.id, newCredential("secret"), from), deadline()));
    if (i >= WARMUP) {
      unknownMs.push(unknown);
      knownMs.push(wrong);
    }
  }

  const base = summary(quiet);
  const rows = [
    { measure: "correct login, quiet (baseline)", ...summary(quiet) },
    { measure: `correct login while its address fails ${FAILURES}×`, ...summary(underAttack) },
    { measure: "failure, unknown key id", ...summary(unknownMs) },
    { measure: "failure, known key id, wrong secret", ...summary(knownMs) },
  ];
  process.stdout.write(
    `\nbench/auth/loginUnderFailures — ${SAMPLES} samples each (after ${WARMUP}), node ${process.version}\n\n`,
  );
  process.stdout.write(
    `${table(
      rows.map((row) => ({
        measure: row.measure,
        "p50 ms": row.p50.toFixed(3),
        "p90 ms": row.p90.toFixed(3),
        "mean ms": row.mean.toFixed(3),
        "p50 ratio": (row.p50 / base.p50).toFixed(2),
      })),
    )}\n\n`,
  );
  const attacked = summary(underAttack).p50 / base.p50;
  const idRatio = summary(knownMs).p50 / summary(unknownMs).p50;
  process.stdout.write(`failures counted for the address: ${failed} (budget ${defaults.address.budget})\n`);
  process.stdout.write(
    `target: correct login under failures within 10 % of quiet (p50 ratio ${attacked.toFixed(2)}) → ${attacked <= 1.1 ? "met" : "NOT met"}\n`,
  );
  process.stdout.write(
    `known / unknown key id failure, p50 ratio ${idRatio.toFixed(3)} (mean ${(summary(knownMs).mean / summary(unknownMs).mean).toFixed(3)})\n`,
  );
} finally {
  redis.disconnect();
  await server.stop();
  state.remove();
}
