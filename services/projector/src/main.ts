import { createLogger } from "@platform/log";
import { createMetricsRegistry } from "@platform/runtime";
import { kafkaDependency, natsDependency, redisDependency, runBackendService } from "@platform/service";
import { loadProjectorConfig } from "./config.js";

// The projections themselves arrive with the intents and data issues.
const config = loadProjectorConfig();
const log = createLogger({ service: "projector", level: config.LOG_LEVEL });
const redis = redisDependency(config.REDIS_URL, "projector");
const kafka = kafkaDependency(config.KAFKA_BROKERS, "projector", log);
const nats = natsDependency(config.NATS_URL, "projector", log);
log.info({ projections: config.PROJECTIONS }, "projections configured");

await runBackendService({
  name: "projector",
  log,
  registry: createMetricsRegistry("projector"),
  grpc: { host: config.GRPC_HOST, port: config.GRPC_PORT, services: [] },
  ops: { host: config.OPS_HOST, port: config.OPS_PORT },
  dependencies: [redis.check, kafka.check, nats.check],
  readinessIntervalMs: config.READINESS_INTERVAL_MS,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  stops: [nats.close, kafka.close, redis.close],
});
