import { loadChainConfig } from "@platform/chain";
import { loadFromVariableOrExit } from "@platform/config";
import { createHealthChecker } from "@platform/grpc";
import { createLogger } from "@platform/log";
import { createMetricsRegistry } from "@platform/runtime";
import { kafkaDependency, natsDependency, redisDependency, runBackendService } from "@platform/service";
import { loadIntentsGatewayConfig } from "./config.js";

// Quotes, preflight, notifications and status reads arrive with the intents issue.
const config = loadIntentsGatewayConfig();
const log = createLogger({ service: "intents-gateway", level: config.LOG_LEVEL });
const chains = await loadFromVariableOrExit("intents-gateway", "CHAINS_FILE", () => loadChainConfig(config.CHAINS_FILE));
const redis = redisDependency(config.REDIS_URL, "intents-gateway");
const kafka = kafkaDependency(config.KAFKA_BROKERS, "intents-gateway", log);
const nats = natsDependency(config.NATS_URL, "intents-gateway", log);
const tcHealth = createHealthChecker(config.TC_GRPC_TARGET);
log.info({ chains: chains.chains.map((chain) => chain.name) }, "chains configured");

await runBackendService({
  name: "intents-gateway",
  log,
  registry: createMetricsRegistry("intents-gateway"),
  grpc: { host: config.GRPC_HOST, port: config.GRPC_PORT, services: [] },
  ops: { host: config.OPS_HOST, port: config.OPS_PORT },
  dependencies: [
    redis.check,
    kafka.check,
    nats.check,
    { name: "grpc:tc", probe: async () => (await tcHealth.check("platform.tc.v1.TcService", 1_000)) === "SERVING" },
  ],
  readinessIntervalMs: config.READINESS_INTERVAL_MS,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  stops: [nats.close, kafka.close, redis.close, { name: "tc", run: () => tcHealth.close() }],
});

