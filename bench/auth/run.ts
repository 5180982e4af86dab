// bench/auth: tokens issued per second, and the throughput of a cheap protected route with token
// check and rate limiting on, as a ratio of the same route with both off, in one run on one machine.
//
//   pnpm bench:auth            (builds first; the stack runs from dist, like production)
//
// Load comes from autocannon in this process over loopback; each measurement is bounded in time.
import { join } from "node:path";
import { authCli, freePorts, repoRoot, serviceProcessSpecs, silentProgress, startStack } from "@platform/local-stack";
import { spawnManaged, tempDir, waitFor } from "@platform/testing";
import { type LoadResult, load, table } from "../src/load.js";

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const state = tempDir("bench-auth");
const ports = await freePorts();
process.stdout.write("starting the stack (Kafka, Redis, NATS, anvil, services)…\n");
const stack = await startStack({
  stateDir: state.path,
  ports,
  detached: false,
  runtime: "dist",
  progress: silentProgress,
  logLevel: "warn",
});
const base = stack.descriptor.gatewayUrl;
const authTarget = stack.descriptor.processes.find((entry) => entry.name === "auth")!.adminGrpcTarget!;

// The baseline gateway: same app, same backends, access checks off, on its own port.
const baselinePort = (await freePorts()).gateway;
const infra = {
  ...stack.descriptor.infrastructure,
  chainsFile: join(state.path, "chains.json"),
  secretsDir: join(state.path, "secrets"),
};
const gatewayEnv = serviceProcessSpecs(ports, infra, "warn").find((spec) => spec.name === "gateway")!.env;
const baseline = spawnManaged({
  name: "gateway-baseline",
  command: process.execPath,
  args: [
    "--conditions=@platform/source",
    "--import",
    "tsx",
    join(repoRoot, "bench", "auth", "gatewayWithoutAccessChecks.ts"),
  ],
  cwd: repoRoot,
  logFile: join(state.path, "logs", "gateway-baseline.log"),
  env: { PATH: process.env.PATH, ...gatewayEnv, HTTP_PORT: String(baselinePort), LOG_LEVEL: "warn" },
});
const baselineUrl = `http://127.0.0.1:${baselinePort}`;
await waitFor(async () => (await fetch(`${baselineUrl}/readyz`).catch(() => undefined))?.status === 200, {
  what: "baseline gateway",
  timeoutMs: 60_000,
});

try {
  // An unlimited-tier key, so the budget is checked on every request but never runs out.
  const created = JSON.parse(
    await authCli(
      "dist",
      ["keys", "create", "--name", "bench", "--scopes", "intents:read", "--tier", "unlimited", "--json"],
      { AUTH_ADMIN_GRPC_TARGET: authTarget },
    ),
  ) as { id: string; secret: string };
  const tokenResponse = await fetch(`${base}/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "API_KEY", username: created.id, password: created.secret }),
  });
  const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
  const route = "/intents/v1/tc/status?walletAddress=0x52908400098527886e0f7030069857d2e4169ee7";

  const issued = await load({
    url: `${base}/auth`,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "API_KEY", username: created.id, password: created.secret }),
    connections: 16,
    durationSeconds: DURATION,
  });

  // Warm both paths, then alternate on/off so drift on a shared 2-core machine hits both alike.
  await load({
    url: `${base}${route}`,
    headers: { authorization: `Bearer ${token}` },
    connections: CONNECTIONS,
    durationSeconds: 2,
  });
  await load({ url: `${baselineUrl}${route}`, connections: CONNECTIONS, durationSeconds: 2 });
  const on: LoadResult[] = [];
  const off: LoadResult[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    on.push(
      await load({
        url: `${base}${route}`,
        headers: { authorization: `Bearer ${token}` },
        connections: CONNECTIONS,
        durationSeconds: DURATION,
      }),
    );
    off.push(await load({ url: `${baselineUrl}${route}`, connections: CONNECTIONS, durationSeconds: DURATION }));
  }
  const mean = (results: LoadResult[], pick: (result: LoadResult) => number) =>
    results.reduce((sum, result) => sum + pick(result), 0) / results.length;
  const onRps = mean(on, (result) => result.requestsPerSecond);
  const offRps = mean(off, (result) => result.requestsPerSecond);
  const failures = [issued, ...on, ...off].reduce((sum, result) => sum + result.failures, 0);

  process.stdout.write(
    `\nbench/auth — ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${DURATION} s, node ${process.version}\n\n`,
  );
  process.stdout.write(
    `${table([
      {
        measure: "POST /auth (API_KEY), 16 connections",
        "req/s": issued.requestsPerSecond.toFixed(0),
        "p50 ms": issued.p50Ms,
        "p99 ms": issued.p99Ms,
        ratio: "-",
      },
      {
        measure: "protected route, checks off (baseline)",
        "req/s": offRps.toFixed(0),
        "p50 ms": mean(off, (r) => r.p50Ms).toFixed(1),
        "p99 ms": mean(off, (r) => r.p99Ms).toFixed(1),
        ratio: "1.00",
      },
      {
        measure: "protected route, token + rate limit on",
        "req/s": onRps.toFixed(0),
        "p50 ms": mean(on, (r) => r.p50Ms).toFixed(1),
        "p99 ms": mean(on, (r) => r.p99Ms).toFixed(1),
        ratio: (onRps / offRps).toFixed(2),
      },
    ])}\n\n`,
  );
  process.stdout.write(
    `target: ratio >= 0.85 → ${onRps / offRps >= 0.85 ? "met" : "NOT met"}; non-2xx or errors: ${failures}\n`,
  );
} finally {
  await baseline.stop();
  await stack.stop();
  state.remove();
}
