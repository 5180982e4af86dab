// Development aid for bench/data (not the benchmark): the gateway process alone, measured in CPU µs
// per request, without the stack. The real gateway app (createGatewayApp with the real routes, the
// real access guard with its Redis script, token verification, validation, HAL render) runs in this
// process; the data backends are a child process serving the routes' canned answers over gRPC
// (services/gateway/src/routes/data/examples.ts); autocannon runs in another child. So a change to
// the gateway's own per-request cost can be compared in a minute, alternating variants.
//
//   cd services/gateway && npx tsx --conditions=@platform/source bench/gatewayCpu.ts [seconds] [rounds]
//
// GATEWAY_CPU_PATHS (comma list; default the three headline routes' shapes); GATEWAY_CPU_VARIANTS
// (below) compares variants side by side.
import { fork, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "@platform/config";
import { startGrpcServer, unaryHandler } from "@platform/grpc";
import { createLogger } from "@platform/log";
import { AccountsServiceService } from "@platform/proto/data/v1/accounts";
import { MarketServiceService } from "@platform/proto/data/v1/market";
import { SubnetsServiceService } from "@platform/proto/data/v1/subnets";
import { createMetricsRegistry, watchDependencies } from "@platform/runtime";
import { coalesceWrites, createRedis, redisReadiness } from "@platform/store";
import { startTracingOrExit } from "@platform/telemetry";
import { startRedis, tempDir, waitFor } from "@platform/testing";
import { generateKeyPair, SignJWT } from "jose";
import { createAccessGuard } from "../src/access/accessGuard.js";
import { createRateLimiter } from "../src/access/rateLimiter.js";
import { createTokenVerifier } from "../src/access/verifyAccessToken.js";
import { createGatewayApp } from "../src/app.js";
import { connectBackends } from "../src/backends.js";
import { gatewayConfigSchema } from "../src/config.js";
import { balanceLatestExample, priceLatestExample, validatorsLatestExample } from "../src/routes/data/examples.js";
import { unservedEventStreams } from "../src/routes/events/eventStreams.js";
import { apiRoutes } from "../src/routes/index.js";

const log = createLogger({ service: "gateway-cpu", level: "warn" });
// OTEL_* trace the in-process gateway (and the backends) as the service would: off by default.
startTracingOrExit("gateway-cpu");

if (process.env.GATEWAY_CPU_ROLE === "backend") {
  const answer = <T>(name: string, value: T) => unaryHandler(log, name, async () => value);
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    services: [
      {
        name: "platform.data.v1.AccountsService",
        definition: AccountsServiceService,
        implementation: { getBalanceLatest: answer("getBalanceLatest", balanceLatestExample) },
      },
      {
        name: "platform.data.v1.MarketService",
        definition: MarketServiceService,
        implementation: { getPriceLatest: answer("getPriceLatest", priceLatestExample) },
      },
      {
        name: "platform.data.v1.SubnetsService",
        definition: SubnetsServiceService,
        implementation: { getValidatorsLatest: answer("getValidatorsLatest", validatorsLatestExample) },
      },
    ],
  });
  server.setServing(true);
  process.send!({ port: server.port });
} else {
  const seconds = Number(process.argv[2] ?? 5);
  const rounds = Number(process.argv[3] ?? 3);
  const paths = (
    process.env.GATEWAY_CPU_PATHS ??
    "/data/v1/accounts/5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY/balance/latest,/data/v1/coin/price/latest,/data/v1/subnets/1/validators/latest"
  ).split(",");
  const dir = tempDir("gateway-cpu");
  const redisServer = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  const backend = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, GATEWAY_CPU_ROLE: "backend" },
    execArgv: process.execArgv,
  });
  const backendPort = await new Promise<number>((resolve) =>
    backend.once("message", (message: { port: number }) => resolve(message.port)),
  );
  try {
    const keyId = "ak_0123456789ABCDEFGHIJKL";
    const { privateKey, publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    const token = await new SignJWT({ scope: "data:read", tier: "unlimited", kver: 1, client_id: keyId })
      .setProtectedHeader({ alg: "EdDSA", kid: "k1", typ: "at+jwt" })
      .setSubject(keyId)
      .setIssuer("platform-auth")
      .setAudience("platform-api")
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(privateKey);
    const target = `127.0.0.1:${backendPort}`;
    const config = loadConfig(gatewayConfigSchema, {
      REDIS_URL: redisServer.url,
      AUTH_GRPC_TARGET: "127.0.0.1:1",
      TC_GRPC_TARGET: "127.0.0.1:1",
      INTENTS_GRPC_TARGET: "127.0.0.1:1",
      DATA_ACCOUNTS_GRPC_TARGET: target,
      DATA_MARKET_GRPC_TARGET: target,
      DATA_SUBNETS_GRPC_TARGET: target,
      PUBLIC_BASE_URL: "http://127.0.0.1",
    });
    const keys = {
      keyFor: async (kid: string) => (kid === "k1" ? publicKey : undefined),
      issuer: async () => "platform-auth",
      audience: async () => "platform-api",
    };
    // GATEWAY_CPU_VARIANTS=A=1,B=0|A=0: one gateway app per variant in this process, each built with
    // these environment variables set (switches the gateway code reads when it is put together);
    // the variants are loaded in turn, so each round's CPU is that variant's.
    const variants = (process.env.GATEWAY_CPU_VARIANTS ?? "").split("|").map((text) =>
      Object.fromEntries(
        text
          .split(",")
          .filter((pair) => pair.includes("="))
          .map((pair) => pair.split("=") as [string, string]),
      ),
    );
    const apps: Array<{ label: string; base: string; close(): void }> = [];
    for (const variant of variants) {
      Object.assign(process.env, variant);
      const redis = createRedis({ url: redisServer.url, connectionName: "gateway" });
      await waitFor(() => redisReadiness(redis), { what: "redis" });
      // As the gateway's main.ts does.
      coalesceWrites(redis);
      await redis.hset(`auth:key:{${keyId}}`, {
        status: "active",
        secretVersion: "1",
        scopes: "data:read",
        tier: "unlimited",
      });
      const backends = connectBackends(config);
      // Attribution only: GUARD=none admits every request (no token check, no Redis script);
      // BACKEND=fake answers from memory (no gRPC, no protobuf), so their cost can be told apart.
      const realGuard = createAccessGuard(
        createTokenVerifier(keys, { clockToleranceSeconds: 30 }),
        createRateLimiter(redis, [{ name: "unlimited", ratePerSecond: 100_000, burst: 100_000 }], "unlimited"),
      );
      const guard =
        variant.GUARD === "none"
          ? async () => ({
              keyId,
              headers: { "ratelimit-policy": '"default";q=100000;w=1', ratelimit: '"default";r=99999;t=0' },
            })
          : realGuard;
      if (variant.BACKEND === "fake") {
        const answering =
          (answer: unknown) =>
          (
            _request: unknown,
            _metadata: unknown,
            _options: unknown,
            callback: (error: null, response: unknown) => void,
          ) =>
            void setImmediate(() => callback(null, answer));
        Object.assign(backends.accounts, { getBalanceLatest: answering(balanceLatestExample) });
        Object.assign(backends.market, { getPriceLatest: answering(priceLatestExample) });
        Object.assign(backends.subnets, { getValidatorsLatest: answering(validatorsLatestExample) });
      }
      const readiness = watchDependencies([{ name: "redis", probe: () => redisReadiness(redis) }], 1_000);
      const app = createGatewayApp({
        log,
        guard,
        registry: createMetricsRegistry("gateway"),
        readiness,
        routes: apiRoutes(backends, unservedEventStreams(log)),
        publicBaseUrl: config.PUBLIC_BASE_URL,
        maxBodyBytes: 65_536,
      });
      const server = app.listen(0, "127.0.0.1");
      await new Promise((resolve) => server.once("listening", resolve));
      server.keepAliveTimeout = 65_000;
      apps.push({
        label: JSON.stringify(variant),
        base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
        close() {
          server.close();
          server.closeAllConnections();
          backends.close();
          readiness.stop();
          redis.disconnect();
        },
      });
    }
    for (const { base } of apps) {
      for (const path of paths) {
        const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
        if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      }
    }
    const autocannon = join(
      fileURLToPath(new URL("../../../bench/node_modules/autocannon/autocannon.js", import.meta.url)),
    );
    const load = (base: string, path: string, duration: number) =>
      new Promise<{ requests: number; p99: number }>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [
            autocannon,
            "-c",
            "32",
            "-d",
            String(duration),
            "-j",
            "-H",
            `authorization=Bearer ${token}`,
            `${base}${path}`,
          ],
          { stdio: ["ignore", "pipe", "ignore"] },
        );
        let out = "";
        child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
        child.once("exit", () => {
          try {
            const result = JSON.parse(out) as { requests: { total: number }; latency: { p99: number }; non2xx: number };
            if (result.non2xx > 0) reject(new Error(`${path}: ${result.non2xx} non-2xx answers`));
            resolve({ requests: result.requests.total, p99: result.latency.p99 });
          } catch (error) {
            reject(error);
          }
        });
      });
    for (const { base } of apps) for (const path of paths) await load(base, path, 2);
    const figures = new Map<string, number[]>();
    for (let round = 0; round < rounds; round += 1) {
      for (const path of paths) {
        for (let index = 0; index < apps.length; index += 1) {
          const app = apps[(index + round) % apps.length]!;
          const before = process.cpuUsage();
          const { requests } = await load(app.base, path, seconds);
          const used = process.cpuUsage(before);
          const key = `${path.replace(/accounts\/\w+/, "accounts/…").padEnd(38)} ${app.label}`;
          (figures.get(key) ?? figures.set(key, []).get(key)!).push((used.user + used.system) / requests);
        }
      }
    }
    for (const [key, values] of [...figures].sort(([a], [b]) => a.localeCompare(b))) {
      const sorted = [...values].sort((a, b) => a - b);
      process.stdout.write(
        `${key.padEnd(80)} gateway CPU µs/req: ${values.map((value) => value.toFixed(0)).join(" ")}  median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)}\n`,
      );
    }
    for (const app of apps) app.close();
  } finally {
    backend.kill();
    await redisServer.stop();
    dir.remove();
  }
}
