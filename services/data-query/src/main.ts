import type { GrpcServiceRegistration } from "@platform/grpc";
import type { HistoryDb } from "@platform/history";
import { createLogger, type Logger } from "@platform/log";
import { createMetricsRegistry } from "@platform/runtime";
import {
  historyDependency,
  natsConnectionOf,
  natsDependency,
  redisDependency,
  runBackendService,
} from "@platform/service";
import { coalesceWrites, type Redis, redisConnectionOf } from "@platform/store";
import { startTracingOrExit } from "@platform/telemetry";
import type { Registry } from "prom-client";
import { accountsGrpcService } from "./accounts/index.js";
import { type DataQueryConfig, loadDataQueryConfig, readsHistory } from "./config.js";
import { dataEventsGrpcService } from "./events/index.js";
import { marketGrpcService } from "./market/index.js";
import { guardedByMarkers, PROJECTION_MARKERS } from "./shared/rebuildGuard.js";
import { subnetsGrpcService } from "./subnets/index.js";

// Each group is one gRPC service over its read models; DATA_QUERY_GROUPS picks the ones this
// process serves, so each group deploys and scales apart.
const config = loadDataQueryConfig();
// Before any connection opens, so the Redis client and the gRPC server are traced (off by default).
const tracing = startTracingOrExit("data-query");
const log = createLogger({ service: "data-query", level: config.LOG_LEVEL });
// Below the gateway's 2 s deadline for a call (its GRPC_DEADLINE_MS): a read stuck on a Redis node
// that died fails here and answers 503 READ_MODEL_UNAVAILABLE. (Commands ioredis still queues
// while the Cluster relearns its slots have no timeout; guardedByMarkers bounds the whole call.)
const redis = redisDependency(redisConnectionOf(config), "data-query", { commandTimeoutMs: 1_500 });
// The reads of concurrent calls that start in the same event-loop turn leave in one socket write.
coalesceWrites(redis.client);
log.info({ groups: config.DATA_QUERY_GROUPS }, "serving data groups");
// The history database, as data-query's read-only role: required by the accounts group (balance
// history, transactions and balances older than the newest points Redis keeps), used by the market
// and subnets groups when configured (reads at a block older than the newest points Redis keeps;
// without it those answer BLOCK_BEFORE_HISTORY).
const history =
  readsHistory(config.DATA_QUERY_GROUPS) ||
  (config.POSTGRES_URL !== undefined && config.DATA_QUERY_GROUPS.some((group) => group !== "events"))
    ? historyDependency({ ...config, POSTGRES_URL: config.POSTGRES_URL! }, "data-query")
    : undefined;

type Group = DataQueryConfig["DATA_QUERY_GROUPS"][number];
const registry = createMetricsRegistry("data-query");
type GroupDeps = {
  redis: Redis;
  history: HistoryDb | undefined;
  log: Logger;
  answerCacheMaxBytes: number;
  registry: Registry;
};
type ReadGroup = Exclude<Group, "events">;
const services: Record<ReadGroup, (deps: GroupDeps) => GrpcServiceRegistration> = {
  accounts: accountsGrpcService,
  market: marketGrpcService,
  subnets: subnetsGrpcService,
};
// The projections each group reads (accounts values positions at the market's prices): while one
// is rebuilt after a loss of Redis, the group answers 503 REBUILDING rather than an older as_of.
const readsFrom: Record<ReadGroup, (keyof typeof PROJECTION_MARKERS)[]> = {
  accounts: ["accounts", "market"],
  market: ["market", "subnets"],
  subnets: ["subnets"],
};
const readGroups = config.DATA_QUERY_GROUPS.filter((group): group is ReadGroup => group !== "events");
const registrations = readGroups.map((group) =>
  guardedByMarkers(
    services[group]({
      redis: redis.client,
      history: history?.client,
      log: log.child({ group }),
      answerCacheMaxBytes: config.ANSWER_CACHE_MAX_BYTES,
      registry,
    }),
    redis.client,
    readsFrom[group].map((projection) => PROJECTION_MARKERS[projection]),
  ),
);

// The event streams (GET /data/v1/events) follow the data change log; NATS says when it grew.
const nats = config.DATA_QUERY_GROUPS.includes("events")
  ? natsDependency(natsConnectionOf({ ...config, NATS_URL: config.NATS_URL! }), "data-query", log)
  : undefined;
const events = nats
  ? dataEventsGrpcService({
      redis: redis.client,
      log: log.child({ group: "events" }),
      signals: nats.client,
      pollMs: config.WATCH_POLL_MS,
      maxBufferedBytes: config.WATCH_MAX_BUFFERED_BYTES,
      maxReplayEntries: config.WATCH_MAX_REPLAY_ENTRIES,
    })
  : undefined;
if (events) registrations.push(events);

await runBackendService({
  name: "data-query",
  log,
  registry,
  grpc: { host: config.GRPC_HOST, port: config.GRPC_PORT, services: registrations },
  ops: { host: config.OPS_HOST, port: config.OPS_PORT },
  dependencies: [redis.check, ...(nats ? [nats.check] : []), ...(history ? [history.check] : [])],
  readinessIntervalMs: config.READINESS_INTERVAL_MS,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  stops: [
    ...(events ? [{ name: "event-streams", run: async () => events.close() }] : []),
    ...(nats ? [nats.close] : []),
    redis.close,
    ...(history ? [history.close] : []),
    tracing.stop,
  ],
});
