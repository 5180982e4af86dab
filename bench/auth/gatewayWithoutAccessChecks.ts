// The baseline of bench/auth: the real gateway application with the same routes and backends,
// but a guard that admits every request without looking at a token or Redis. Started as its own
// process by run.ts with the gateway's environment; never part of a deployment.
import { createLogger } from "@platform/log";
import { createMetricsRegistry, watchDependencies } from "@platform/runtime";
import { createGatewayApp } from "../../services/gateway/src/app.js";
import { connectBackends } from "../../services/gateway/src/backends.js";
import { loadGatewayConfig } from "../../services/gateway/src/config.js";
import { unservedEventStreams } from "../../services/gateway/src/routes/events/eventStreams.js";
import { apiRoutes } from "../../services/gateway/src/routes/index.js";

const config = loadGatewayConfig();
const backends = connectBackends(config);
const app = createGatewayApp({
  log: createLogger({ service: "gateway-baseline", level: config.LOG_LEVEL }),
  registry: createMetricsRegistry("gateway-baseline"),
  readiness: watchDependencies(backends.checks, config.READINESS_INTERVAL_MS),
  routes: apiRoutes(
    backends,
    unservedEventStreams(createLogger({ service: "gateway-baseline", level: config.LOG_LEVEL })),
  ),
  guard: async () => ({ keyId: "baseline", headers: {} }),
  publicBaseUrl: config.PUBLIC_BASE_URL,
  maxBodyBytes: config.MAX_BODY_BYTES,
});
app.listen(config.HTTP_PORT, config.HTTP_HOST);
process.once("SIGTERM", () => process.exit(0));
