import { createLazyPublisher, ensureTopics } from "@platform/bus";
import { loadChainConfig } from "@platform/chain";
import { loadFromVariableOrExit } from "@platform/config";
import { createGrpcClient, createHealthChecker, unaryHandler } from "@platform/grpc";
import { createLogger } from "@platform/log";
import { IntentsServiceService, type NotifyRequest, type NotifyResponse } from "@platform/proto/intents/v1/intents";
import { TcServiceClient } from "@platform/proto/tc/v1/tc";
import { createMetricsRegistry } from "@platform/runtime";
import { kafkaDependency, natsDependency, redisDependency, runBackendService } from "@platform/service";
import { loadIntentsGatewayConfig } from "./config.js";
import { notify } from "./notify/notify.js";

// Quotes, preflight and the status reads arrive with the intents issue; the notification (with
// its T&C gate) is served now.
const config = loadIntentsGatewayConfig();
const log = createLogger({ service: "intents-gateway", level: config.LOG_LEVEL });
const chains = await loadFromVariableOrExit("intents-gateway", "CHAINS_FILE", () => loadChainConfig(config.CHAINS_FILE));
const originChainIds = new Set(chains.chains.filter((chain) => chain.roles.includes("origin")).map((chain) => String(chain.chainId)));
const redis = redisDependency(config.REDIS_URL, "intents-gateway");
const kafka = kafkaDependency(config.KAFKA_BROKERS, "intents-gateway", log);
const nats = natsDependency(config.NATS_URL, "intents-gateway", log);
const topics = ensureTopics(kafka.client, { topics: ["intents.notifications.v1"], replicationFactor: config.KAFKA_REPLICATION_FACTOR, logger: log });
const publisher = createLazyPublisher(kafka.client, { onConnectError: (error, failures) => log.warn({ err: error, failures }, "kafka publisher not connected yet") });
const tc = createGrpcClient(TcServiceClient, { target: config.TC_GRPC_TARGET, deadlineMs: 2_000, unavailableRetries: 2 });
const tcHealth = createHealthChecker(config.TC_GRPC_TARGET);
log.info({ chains: chains.chains.map((chain) => chain.name), originChainIds: [...originChainIds] }, "chains configured");

await runBackendService({
  name: "intents-gateway",
  log,
  registry: createMetricsRegistry("intents-gateway"),
  grpc: {
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    services: [
      {
        name: "platform.intents.v1.IntentsService",
        definition: IntentsServiceService,
        implementation: {
          notify: unaryHandler<NotifyRequest, NotifyResponse>(log, "Notify", (request, call) => {
            const apiKeyId = String(call.metadata.get("x-api-key-id")[0] ?? "");
            const deadline = call.getDeadline();
            const until = deadline instanceof Date ? deadline.getTime() : Number.isFinite(deadline) ? Number(deadline) : Date.now() + 5_000;
            return notify({ tc, redis: redis.client, publisher, signals: nats.client, originChainIds }, request, apiKeyId, until);
          }),
        },
      },
    ],
  },
  ops: { host: config.OPS_HOST, port: config.OPS_PORT },
  dependencies: [
    redis.check,
    kafka.check,
    nats.check,
    { name: "topics", probe: async () => topics.ready() },
    { name: "grpc:tc", probe: async () => (await tcHealth.check("platform.tc.v1.TcService", 1_000)) === "SERVING" },
  ],
  readinessIntervalMs: config.READINESS_INTERVAL_MS,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  stops: [
    { name: "topics", run: () => topics.stop() },
    { name: "publisher", run: () => publisher.close() },
    nats.close,
    kafka.close,
    redis.close,
    { name: "tc", run: () => (tc.close(), tcHealth.close()) },
  ],
});
