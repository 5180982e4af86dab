import type { Socket } from "node:net";
import { loadFromVariableOrExit } from "@platform/config";
import { createLogger } from "@platform/log";
import {
  createMetricsRegistry,
  exportReadinessMetrics,
  handleShutdown,
  startOpsServer,
  watchDependencies,
} from "@platform/runtime";
import { coalesceWrites, createRedis, redisConnectionOf, redisReadiness } from "@platform/store";
import { startTracingOrExit } from "@platform/telemetry";
import { createAccessGuard } from "./access/accessGuard.js";
import { createRateLimiter, parseTiers } from "./access/rateLimiter.js";
import { cachedSigningKeys } from "./access/signingKeys.js";
import { createTokenVerifier } from "./access/verifyAccessToken.js";
import { createGatewayApp } from "./app.js";
import { connectBackends } from "./backends.js";
import { loadGatewayConfig } from "./config.js";
import { connectConditionalReads } from "./http/conditional/connect.js";
import { serverLimitsOf } from "./http/serverLimits.js";
import { createEventStreams } from "./routes/events/eventStreams.js";
import { apiRoutes } from "./routes/index.js";

const config = loadGatewayConfig();
// Before any connection opens, so the Redis client and the gRPC server are traced (off by default).
const tracing = startTracingOrExit("gateway");
const log = createLogger({ service: "gateway", level: config.LOG_LEVEL });
const tiers = await loadFromVariableOrExit("gateway", "RATE_LIMIT_TIERS", () => parseTiers(config.RATE_LIMIT_TIERS));
const registry = createMetricsRegistry("gateway");
const redis = createRedis({ ...redisConnectionOf(config), connectionName: "gateway" });
// The rate-limit scripts of requests that arrive in the same event-loop turn leave in one socket write.
coalesceWrites(redis);
const backends = connectBackends(config);
// Conditional Data API reads (http/conditional): proven unchanged from memory while the
// projections' change signals arrive over NATS. Optional, like a backend: NATS down (or not
// configured) only sends every conditional read to data-query.
const conditional = connectConditionalReads({
  natsUrl: config.NATS_URL,
  natsUser: config.NATS_USERNAME,
  natsPassword: config.NATS_PASSWORD,
  blockSeconds: config.DATA_BLOCK_SECONDS,
  maxBytes: config.KEPT_ANSWERS_MAX_BYTES,
  registry,
  log,
});
// Ready while the gateway itself can serve: every protected route needs Redis (revocation and the
// rate limit). A backend that is down only fails its own routes with 503, so its health is listed in
// /readyz but does not take the gateway out of its load balancer, where every route would be lost.
const readiness = watchDependencies(
  [
    { name: "redis", probe: () => redisReadiness(redis) },
    ...backends.checks.map((check) => ({ ...check, required: false })),
    ...conditional.checks,
  ],
  config.READINESS_INTERVAL_MS,
);
readiness.onChange((snapshot) => {
  const down = Object.entries(snapshot.checks)
    .filter(([, state]) => !state.ok)
    .map(([name]) => name);
  if (!snapshot.ready) log.warn({ down }, "not ready");
  else if (down.length > 0)
    log.warn(
      { down },
      "ready; these do not answer: a backend's routes answer 503, without NATS conditional reads call data-query",
    );
  else log.info("ready: Redis and every backend answer");
});
readiness.onChange(conditional.onReadiness);
exportReadinessMetrics(readiness, registry);

const verifier = createTokenVerifier(cachedSigningKeys(backends.auth), {
  clockToleranceSeconds: config.TOKEN_CLOCK_TOLERANCE_SECONDS,
});
const limiter = await loadFromVariableOrExit("gateway", "RATE_LIMIT_DEFAULT_TIER", () =>
  createRateLimiter(redis, tiers, config.RATE_LIMIT_DEFAULT_TIER),
);

const streams = createEventStreams({ redis, limiter, config, registry, log });

const app = createGatewayApp({
  log,
  guard: createAccessGuard(verifier, limiter, { registry }),
  trustedProxies: config.TRUST_PROXY_CIDRS,
  registry,
  readiness,
  routes: apiRoutes(backends, streams),
  publicBaseUrl: config.PUBLIC_BASE_URL,
  maxBodyBytes: config.MAX_BODY_BYTES,
  conditional: conditional.reads,
  serverLimits: serverLimitsOf(config),
  corsOrigins: config.CORS_ALLOWED_ORIGINS,
});

// /metrics and the detailed /readyz on their own port, out of the public's reach.
const ops = await startOpsServer({ host: config.OPS_HOST, port: config.OPS_PORT, readiness, registry });
log.info({ port: ops.port, host: config.OPS_HOST }, "ops endpoint started");

const server = app.listen(config.HTTP_PORT, config.HTTP_HOST, () => {
  log.info({ port: config.HTTP_PORT, host: config.HTTP_HOST }, "gateway started");
});
server.on("error", (error) => {
  log.fatal({ err: error }, "HTTP server failed");
  process.exit(1);
});
const sockets = new Set<Socket>();
server.on("connection", (socket) => {
  sockets.add(socket);
  socket.once("close", () => sockets.delete(socket));
});

handleShutdown(
  log,
  [
    {
      name: "http",
      // Stop accepting, let in-flight requests finish, then close idle keep-alive connections.
      run: () =>
        new Promise<void>((resolve) => {
          streams.closeAll();
          server.close(() => resolve());
          server.closeIdleConnections();
          setTimeout(
            () => {
              for (const socket of sockets) socket.destroy();
            },
            Math.max(1_000, config.SHUTDOWN_TIMEOUT_MS - 5_000),
          ).unref();
        }),
    },
    { name: "readiness", run: () => readiness.stop() },
    { name: "event-streams", run: async () => streams.close() },
    { name: "ops", run: () => ops.close() },
    { name: "backends", run: () => backends.close() },
    { name: "nats", run: () => conditional.close() },
    { name: "redis", run: async () => void (await redis.quit().catch(() => redis.disconnect())) },
    tracing.stop,
  ],
  config.SHUTDOWN_TIMEOUT_MS,
);
