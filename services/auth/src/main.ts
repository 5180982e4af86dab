import { createLogger } from "@platform/log";
import { createMetricsRegistry } from "@platform/runtime";
import { kafkaDependency, redisDependency, runBackendService } from "@platform/service";
import { loadAuthConfig } from "./config.js";

// API keys and token issuance arrive with the auth issue; until then the process runs with its
// dependencies, health and metrics so the stack and its readiness are complete.
const config = loadAuthConfig();
const log = createLogger({ service: "auth", level: config.LOG_LEVEL });
const redis = redisDependency(config.REDIS_URL, "auth");
const kafka = kafkaDependency(config.KAFKA_BROKERS, "auth", log);

await runBackendService({
  name: "auth",
  log,
  registry: createMetricsRegistry("auth"),
  grpc: { host: config.GRPC_HOST, port: config.GRPC_PORT, services: [] },
  ops: { host: config.OPS_HOST, port: config.OPS_PORT },
  dependencies: [redis.check, kafka.check],
  readinessIntervalMs: config.READINESS_INTERVAL_MS,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  stops: [kafka.close, redis.close],
});
