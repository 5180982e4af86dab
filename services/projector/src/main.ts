import { createLogger } from "@platform/log";
import { createMetricsRegistry, type DependencyCheck, type ShutdownStep } from "@platform/runtime";
import {
  historyDependency,
  kafkaCredentialsOrExit,
  kafkaDependency,
  kafkaTlsOf,
  natsConnectionOf,
  natsDependency,
  redisDependency,
  runBackendService,
} from "@platform/service";
import { createRedis, redisConnectionOf } from "@platform/store";
import { startTracingOrExit } from "@platform/telemetry";
import { startAccountsProjection } from "./accounts/index.js";
import { loadProjectorConfig, usesHistory } from "./config.js";
import { startIntentsHistoryMirror } from "./intents/historyMirror.js";
import { superviseIntentsProjection } from "./intents/intentsSupervisor.js";
import { startMarketProjection } from "./market/index.js";
import { startSubnetsProjection } from "./subnets/index.js";
import type { ProjectionStartOptions, ProjectionSupervisor } from "./supervisor/projectionSupervisor.js";

const config = loadProjectorConfig();
// Before any connection opens, so the Redis client and the gRPC server are traced (off by default).
const tracing = startTracingOrExit("projector");
// Checked before any connection opens, like the rest of the configuration.
const kafkaCredentials = kafkaCredentialsOrExit("projector", config);
const log = createLogger({ service: "projector", level: config.LOG_LEVEL });
const redis = redisDependency(redisConnectionOf(config), "projector");
const kafka = kafkaDependency(config.KAFKA_BROKERS, "projector", log, kafkaCredentials, kafkaTlsOf(config));
const nats = natsDependency(natsConnectionOf(config), "projector", log);
// The history database, as the projector's role: the data projections commit their history there
// before Redis (libs/projection): accounts its balance points and transactions (and restores Redis
// from it after a loss), market and subnets every point of their series.
const history = usesHistory(config)
  ? historyDependency({ ...config, POSTGRES_URL: config.POSTGRES_URL! }, "projector")
  : undefined;
log.info({ projections: config.PROJECTIONS }, "projections configured");
// Created before the projections: each reports its lag and its read model's as_of here.
const registry = createMetricsRegistry("projector");

// Each commit waits for this many replicas before its change signal (shared/commitReplication.ts).
const replicaWait = { replicas: config.REDIS_WAIT_REPLICAS, timeoutMs: config.REDIS_WAIT_TIMEOUT_MS };
const checks: DependencyCheck[] = [];
const stops: ShutdownStep[] = [];
if (config.PROJECTIONS.includes("intents")) {
  // WATCH belongs to a connection: the projection gets one of its own.
  const projectionRedis = createRedis({
    ...redisConnectionOf(config),
    connectionName: "projector-intents",
    commandTimeoutMs: 10_000,
  });
  const intents = superviseIntentsProjection({
    kafka: kafka.client,
    redis: redis.client,
    projectionRedis,
    signals: nats.client,
    replicaWait,
    log: log.child({ projection: "intents" }),
    refundGraceSeconds: config.INTENTS_REFUND_GRACE_SECONDS!,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR,
    chainTopicsRetentionMs: config.CHAIN_TOPICS_RETENTION_MS,
    createTopics: config.KAFKA_CREATE_TOPICS,
    registry,
  });
  checks.push(intents.check);
  if (history !== undefined) {
    // The orders' durable copy beside Redis (intents/historyMirror.ts), on a connection of its own:
    // its reads block on the change log.
    const mirrorRedis = createRedis({ ...redisConnectionOf(config), connectionName: "projector-intents-mirror" });
    const mirror = startIntentsHistoryMirror({
      redis: mirrorRedis,
      history: history.client,
      log: log.child({ projection: "intents", mirror: "history" }),
    });
    stops.push({
      name: "intents-history-mirror",
      run: async () => {
        await mirror.stop();
        mirrorRedis.disconnect();
      },
    });
  }
  stops.push(
    { name: "intents", run: () => intents.stop() },
    {
      name: "intents-redis",
      run: async () => void (await projectionRedis.quit().catch(() => projectionRedis.disconnect())),
    },
  );
}
// The data projections share one options shape; each gets a Redis connection of its own.
const dataProjections: Record<
  "accounts" | "market" | "subnets",
  (options: ProjectionStartOptions) => ProjectionSupervisor
> = {
  accounts: startAccountsProjection,
  market: startMarketProjection,
  subnets: startSubnetsProjection,
};
for (const name of config.PROJECTIONS) {
  if (name === "intents") continue;
  const projectionRedis = createRedis({
    ...redisConnectionOf(config),
    connectionName: `projector-${name}`,
    commandTimeoutMs: 10_000,
  });
  const supervisor = dataProjections[name]({
    kafka: kafka.client,
    redis: redis.client,
    projectionRedis,
    history: history?.client,
    signals: nats.client,
    replicaWait,
    log: log.child({ projection: name }),
    replicationFactor: config.KAFKA_REPLICATION_FACTOR,
    chainTopicsRetentionMs: config.CHAIN_TOPICS_RETENTION_MS,
    createTopics: config.KAFKA_CREATE_TOPICS,
    registry,
    hotWindowBlocks: config.REDIS_HOT_WINDOW_BLOCKS,
  });
  checks.push(supervisor.check);
  stops.push(
    { name, run: () => supervisor.stop() },
    {
      name: `${name}-redis`,
      run: async () => void (await projectionRedis.quit().catch(() => projectionRedis.disconnect())),
    },
  );
}

await runBackendService({
  name: "projector",
  log,
  registry,
  grpc: { host: config.GRPC_HOST, port: config.GRPC_PORT, services: [] },
  ops: { host: config.OPS_HOST, port: config.OPS_PORT },
  dependencies: [redis.check, kafka.check, nats.check, ...(history ? [history.check] : []), ...checks],
  readinessIntervalMs: config.READINESS_INTERVAL_MS,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  stops: [...stops, nats.close, kafka.close, redis.close, ...(history ? [history.close] : []), tracing.stop],
});
