import { createLogger } from "@platform/log";
import { createMetricsRegistry } from "@platform/runtime";
import { redisDependency, runBackendService } from "@platform/service";
import { loadDataQueryConfig } from "./config.js";

// The Accounts, Market and Subnets read services arrive with the Data API issue; the groups are
// already validated here so deployments can be shaped now.
const config = loadDataQueryConfig();
const log = createLogger({ service: "data-query", level: config.LOG_LEVEL });
const redis = redisDependency(config.REDIS_URL, "data-query");
log.info({ groups: config.DATA_QUERY_GROUPS }, "serving data groups");

await runBackendService({
  name: "data-query",
  log,
  registry: createMetricsRegistry("data-query"),
  grpc: { host: config.GRPC_HOST, port: config.GRPC_PORT, services: [] },
  ops: { host: config.OPS_HOST, port: config.OPS_PORT },
  dependencies: [redis.check],
  readinessIntervalMs: config.READINESS_INTERVAL_MS,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  stops: [redis.close],
});
