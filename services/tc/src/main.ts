import { loadChainConfig } from "@platform/chain";
import { ConfigError, loadFromVariableOrExit } from "@platform/config";
import { createLogger } from "@platform/log";
import { createMetricsRegistry } from "@platform/runtime";
import { kafkaCredentialsOrExit, runBackendService } from "@platform/service";
import { startTracingOrExit } from "@platform/telemetry";
import { createTcComponents, type TcComponents } from "./app.js";
import { loadTcConfig } from "./config.js";
import { loadTcVersions } from "./tcVersions.js";

// Configuration and the files it names are all checked before any connection opens: a bad one
// exits 78 with one line naming the variable.
const config = loadTcConfig();
// Before any connection opens, so the Redis client and the gRPC server are traced (off by default).
const tracing = startTracingOrExit("tc");
const chains = await loadFromVariableOrExit("tc", "CHAINS_FILE", () => loadChainConfig(config.CHAINS_FILE));
const versions = await loadFromVariableOrExit("tc", "TC_VERSIONS_FILE", () => loadTcVersions(config.TC_VERSIONS_FILE));
const kafkaCredentials = kafkaCredentialsOrExit("tc", config);
const log = createLogger({ service: "tc", level: config.LOG_LEVEL });

const registry = createMetricsRegistry("tc");
let tc: TcComponents;
try {
  tc = createTcComponents(config, { chains, versions, kafkaCredentials }, log, { metrics: { registry } });
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`tc: configuration error: ${error.message}\n`);
  process.exit(78);
}

await runBackendService({
  name: "tc",
  log,
  registry,
  grpc: { host: config.GRPC_HOST, port: config.GRPC_PORT, services: [tc.grpc] },
  ops: { host: config.OPS_HOST, port: config.OPS_PORT },
  dependencies: tc.dependencies,
  readinessIntervalMs: config.READINESS_INTERVAL_MS,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  stops: [...tc.stops, tracing.stop],
});
