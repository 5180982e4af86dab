// bench/tc: T&C acceptances per second and status reads per second through the gateway, with the
// gateway's own /healthz (same HTTP stack, no token, no backend) as the baseline of the same run.
//
//   pnpm bench:tc            (builds first; the stack runs from dist, like production)
//
// Each acceptance is a real SIWE message signed by a fresh key, with its own nonce; load is
// autocannon over loopback, bounded in count and time.

import { authCli, freePorts, silentProgress, startStack } from "@platform/local-stack";
import { tempDir } from "@platform/testing";
import autocannon from "autocannon";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { load, table } from "../src/load.js";

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ACCEPTS = Number(process.env.BENCH_ACCEPTS ?? 1_000);

const state = tempDir("bench-tc");
process.stdout.write("starting the stack (Kafka, Redis, NATS, anvil, services)…\n");
const stack = await startStack({
  stateDir: state.path,
  ports: await freePorts(),
  detached: false,
  runtime: "dist",
  progress: silentProgress,
  logLevel: "warn",
});
const base = stack.descriptor.gatewayUrl;

try {
  const authTarget = stack.descriptor.processes.find((entry) => entry.name === "auth")!.adminGrpcTarget!;
  const key = JSON.parse(
    await authCli(
      "dist",
      [
        "keys",
        "create",
        "--name",
        "bench-tc",
        "--scopes",
        "intents:read,intents:write",
        "--tier",
        "unlimited",
        "--json",
      ],
      { AUTH_ADMIN_GRPC_TARGET: authTarget },
    ),
  ) as { id: string; secret: string };
  const issued = await fetch(`${base}/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "API_KEY", username: key.id, password: key.secret }),
  });
  const token = ((await issued.json()) as { access_token: string }).access_token;
  const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };

  // Signed acceptances prepared before the clock starts: one fresh wallet and nonce each.
  process.stdout.write(`preparing ${ACCEPTS} signed acceptances…\n`);
  const bodies: string[] = [];
  for (let batch = 0; batch < ACCEPTS; batch += 50) {
    const prepared = await Promise.all(
      Array.from({ length: Math.min(50, ACCEPTS - batch) }, async () => {
        const account = privateKeyToAccount(generatePrivateKey());
        const response = await fetch(`${base}/intents/v1/tc/nonce`, {
          method: "POST",
          headers,
          body: JSON.stringify({ walletAddress: account.address }),
        });
        const fields = (await response.json()) as {
          nonce: string;
          domain: string;
          uri: string;
          chainIds: number[];
          statement: string;
          resource: string;
        };
        const issuedAt = new Date();
        const message = createSiweMessage({
          address: account.address,
          domain: fields.domain,
          uri: fields.uri,
          version: "1",
          chainId: fields.chainIds[0]!,
          nonce: fields.nonce,
          statement: fields.statement,
          issuedAt,
          expirationTime: new Date(issuedAt.getTime() + 9 * 60_000),
          resources: [fields.resource],
        });
        return JSON.stringify({ message, signature: await account.signMessage({ message }) });
      }),
    );
    bodies.push(...prepared);
  }

  let next = 0;
  const accepts = await autocannon({
    url: `${base}/intents/v1/tc/accept`,
    connections: Math.min(CONNECTIONS, 16),
    amount: bodies.length,
    requests: [
      { method: "POST", headers, setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] }) },
    ],
  });
  const walletForReads = "0x52908400098527886e0f7030069857d2e4169ee7";
  const reads = await load({
    url: `${base}/intents/v1/tc/status?walletAddress=${walletForReads}`,
    headers: { authorization: `Bearer ${token}` },
    connections: CONNECTIONS,
    durationSeconds: DURATION,
  });
  const baseline = await load({ url: `${base}/healthz`, connections: CONNECTIONS, durationSeconds: DURATION });

  const acceptsPerSecond = accepts.requests.total / (accepts.duration || 1);
  process.stdout.write(`\nbench/tc — node ${process.version}\n\n`);
  process.stdout.write(
    `${table([
      {
        measure: `GET /healthz (baseline), ${CONNECTIONS} connections`,
        "req/s": baseline.requestsPerSecond.toFixed(0),
        "p50 ms": baseline.p50Ms,
        "p99 ms": baseline.p99Ms,
        ratio: "1.00",
      },
      {
        measure: `GET /intents/v1/tc/status, ${CONNECTIONS} connections`,
        "req/s": reads.requestsPerSecond.toFixed(0),
        "p50 ms": reads.p50Ms,
        "p99 ms": reads.p99Ms,
        ratio: (reads.requestsPerSecond / baseline.requestsPerSecond).toFixed(2),
      },
      {
        measure: `POST /intents/v1/tc/accept, ${Math.min(CONNECTIONS, 16)} connections, ${bodies.length} wallets`,
        "req/s": acceptsPerSecond.toFixed(0),
        "p50 ms": accepts.latency.p50,
        "p99 ms": accepts.latency.p99,
        ratio: (acceptsPerSecond / baseline.requestsPerSecond).toFixed(3),
      },
    ])}\n\n`,
  );
  process.stdout.write(
    `non-2xx or errors: accepts ${accepts.non2xx + accepts.errors}, reads ${reads.failures}, baseline ${baseline.failures}\n`,
  );
} finally {
  await stack.stop();
  state.remove();
}
