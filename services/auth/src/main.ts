import { loadFromVariableOrExit } from "@platform/config";
import { createLogger } from "@platform/log";
import { createMetricsRegistry } from "@platform/runtime";
import { kafkaCredentialsOrExit, runBackendService } from "@platform/service";
import { startTracingOrExit } from "@platform/telemetry";
import { createAuthComponents } from "./app.js";
import { loadAuthConfig } from "./config.js";
import { loadPepper } from "./credentials/pepper.js";
import { loadSigningKeysForStart } from "./tokens/signingKeyStore.js";

// Configuration, the pepper and the signing keys are all checked before any connection opens:
// a bad one exits 78 with one line naming the variable.
const config = loadAuthConfig();
// Before any connection opens, so the Redis client and the gRPC server are traced (off by default).
const tracing = startTracingOrExit("auth");
const pepper = await loadFromVariableOrExit("auth", "AUTH_PEPPER_FILE", () => loadPepper(config.AUTH_PEPPER_FILE));
const signingKeys = await loadFromVariableOrExit("auth", "AUTH_SIGNING_KEYS_DIR", () =>
  loadSigningKeysForStart(config.AUTH_SIGNING_KEYS_DIR),
);
const kafkaCredentials = kafkaCredentialsOrExit("auth", config);
const log = createLogger({ service: "auth", level: config.LOG_LEVEL });
const registry = createMetricsRegistry("auth");
const auth = createAuthComponents(config, { pepper, signingKeys, kafkaCredentials }, log, { metrics: { registry } });

await runBackendService({
  name: "auth",
  log,
  registry,
  grpc: { host: config.GRPC_HOST, port: config.GRPC_PORT, services: [auth.grpc] },
  // Its own listener: whatever reaches the gateway-facing port cannot mint keys.
  adminGrpc: { host: config.ADMIN_GRPC_HOST, port: config.ADMIN_GRPC_PORT, services: [auth.adminGrpc] },
  ops: { host: config.OPS_HOST, port: config.OPS_PORT },
  dependencies: auth.dependencies,
  readinessIntervalMs: config.READINESS_INTERVAL_MS,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  stops: [...auth.stops, tracing.stop],
});
