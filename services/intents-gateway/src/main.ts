import { createLazyPublisher, ensureTopics } from "@platform/bus";
import { loadChainConfig } from "@platform/chain";
import { loadFromVariableOrExit } from "@platform/config";
import { apiKeyIdOf, createGrpcClient, createHealthChecker, createKeyConcurrency, unaryHandler } from "@platform/grpc";
import { createLogger } from "@platform/log";
import {
  type GetIntentRequest,
  type GetIntentResponse,
  IntentsServiceService,
  type ListByTransactionRequest,
  type ListByTransactionResponse,
  type ListExpiredRequest,
  type ListExpiredResponse,
  type ListPendingRequest,
  type ListPendingResponse,
  type NotifyRequest,
  type NotifyResponse,
  type PreflightRequest,
  type PreflightResponse,
  type QuoteRequest,
  type QuoteResponse,
} from "@platform/proto/intents/v1/intents";
import { TcServiceClient } from "@platform/proto/tc/v1/tc";
import { createMetricsRegistry } from "@platform/runtime";
import {
  kafkaCredentialsOrExit,
  kafkaDependency,
  kafkaTlsOf,
  natsConnectionOf,
  natsDependency,
  redisDependency,
  runBackendService,
  sharedKeyConcurrency,
} from "@platform/service";
import { subjects } from "@platform/signals";
import { redisConnectionOf } from "@platform/store";
import { startTracingOrExit } from "@platform/telemetry";
import { createIntentChains } from "./chains/intentChains.js";
import { createTokenDecimals } from "./chains/tokenDecimals.js";
import { loadIntentsGatewayConfig } from "./config.js";
import { notify } from "./notify/notify.js";
import { preflight } from "./preflight/preflight.js";
import { quote } from "./quote/quote.js";
import { createQuoteStore } from "./quote/quoteStore.js";
import { buildRouteTable } from "./quote/routeTable.js";
import { getIntent } from "./reads/getIntent.js";
import { createIntentsChangeFeed } from "./reads/intentsChangeFeed.js";
import { listByTransaction } from "./reads/listByTransaction.js";
import { listUserIntents } from "./reads/listUserIntents.js";
import { mirroredRead } from "./reads/mirrorGuard.js";
import { watchIntents } from "./reads/watchIntents.js";

// Quotes and preflight read the chains of CHAINS_FILE and price its routes; the status reads serve
// the intents projection's Redis records; the notification passes the T&C gate first.
const config = loadIntentsGatewayConfig();
// Before any connection opens, so the Redis client and the gRPC server are traced (off by default).
const tracing = startTracingOrExit("intents-gateway");
// Checked before any connection opens, like the rest of the configuration.
const kafkaCredentials = kafkaCredentialsOrExit("intents-gateway", config);
const log = createLogger({ service: "intents-gateway", level: config.LOG_LEVEL });
const chains = await loadFromVariableOrExit("intents-gateway", "CHAINS_FILE", () =>
  loadChainConfig(config.CHAINS_FILE),
);
// Every FullSettler serves both sides, and routes run both ways: an order may be opened on any
// chain with an intents role, so any of them can be the origin of a notified transaction.
const originChainIds = new Set(
  chains.chains
    .filter((chain) => chain.roles.includes("origin") || chain.roles.includes("destination"))
    .map((chain) => String(chain.chainId)),
);
const redis = redisDependency(redisConnectionOf(config), "intents-gateway");
const mirrored = <Handler>(handler: Handler): Handler => mirroredRead(redis.client, handler);
const kafka = kafkaDependency(config.KAFKA_BROKERS, "intents-gateway", log, kafkaCredentials, kafkaTlsOf(config));
const nats = natsDependency(natsConnectionOf(config), "intents-gateway", log);
const topics = ensureTopics(kafka.client, {
  topics: ["intents.notifications.v1"],
  replicationFactor: config.KAFKA_REPLICATION_FACTOR,
  create: config.KAFKA_CREATE_TOPICS,
  logger: log,
});
const publisher = createLazyPublisher(kafka.client, {
  onConnectError: (error, failures) => log.warn({ err: error, failures }, "kafka publisher not connected yet"),
});
const tc = createGrpcClient(TcServiceClient, {
  target: config.TC_GRPC_TARGET,
  deadlineMs: 2_000,
  unavailableRetries: 2,
});
const tcHealth = createHealthChecker(config.TC_GRPC_TARGET);
// User-triggered reads get their own clients and quota (a chain's preflightRpcUrl, if set): they
// never share a connection budget with anything else, and retry at most once.
const intentChains = createIntentChains(chains, {
  maxInFlight: config.CHAIN_READS_MAX_IN_FLIGHT,
  maxQueued: config.CHAIN_READS_MAX_QUEUED,
  maxRetries: 1,
});
const intentChainIds = new Set(intentChains.keys());
const routes = buildRouteTable(chains, config.DEPLOYMENT_DATA_URL);
const quotes = createQuoteStore(redis.client, config.QUOTE_RETENTION_SECONDS, config.QUOTES_PER_KEY);
const decimals = createTokenDecimals();
log.info(
  {
    chains: chains.chains.map((chain) => chain.name),
    originChainIds: [...originChainIds],
    routes: routes.routes.length,
  },
  "chains configured",
);
// Not fatal: the other routes are served; these come back once the chains file names their tokens.
for (const skipped of routes.unresolved)
  log.warn({ route: skipped.index, reason: skipped.reason }, "route left out: token not resolved");
const changes = createIntentsChangeFeed({
  redis: redis.client,
  log,
  pollMs: config.WATCH_POLL_MS,
  maxReplayEntries: config.WATCH_MAX_REPLAY_ENTRIES,
});
nats.client.subscribe(subjects.readModelChanged("intents"), () => changes.wake());
// Shared by the replicas through Redis (PER_KEY_LIMITS=shared, the default), or per replica.
const perKeyLimit = (limit: number, what: string) =>
  config.PER_KEY_LIMITS === "replica"
    ? createKeyConcurrency(limit, what)
    : sharedKeyConcurrency({ redis: redis.client, keyPrefix: "intents-gateway", limit, what });
const quoteDependencies = {
  routes,
  chains: intentChains,
  decimals,
  quotes,
  fillDeadlineWindowSeconds: config.FILL_DEADLINE_WINDOW_SECONDS,
  perKey: perKeyLimit(config.QUOTES_MAX_CONCURRENT_PER_KEY, "quotes"),
};
const preflightDependencies = {
  routes,
  chains: intentChains,
  decimals,
  quotes,
  openGasFallback: BigInt(config.OPEN_GAS_FALLBACK),
  perKey: perKeyLimit(config.PREFLIGHT_MAX_CONCURRENT_PER_KEY, "preflight checks"),
};
// Every chain-touching call a user makes is bounded per API key as well as per chain (CHAIN_READS_*).
const notificationsPerKey = perKeyLimit(config.NOTIFY_MAX_CONCURRENT_PER_KEY, "notifications");

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
            const apiKeyId = apiKeyIdOf(call);
            const deadline = call.getDeadline();
            const until =
              deadline instanceof Date
                ? deadline.getTime()
                : Number.isFinite(deadline)
                  ? Number(deadline)
                  : Date.now() + 5_000;
            return notify(
              {
                tc,
                redis: redis.client,
                publisher,
                signals: nats.client,
                originChainIds,
                chains: intentChains,
                perKey: notificationsPerKey,
              },
              request,
              apiKeyId,
              until,
            );
          }),
          quote: unaryHandler<QuoteRequest, QuoteResponse>(log, "Quote", (request, call) =>
            quote(quoteDependencies, request, apiKeyIdOf(call)),
          ),
          preflight: unaryHandler<PreflightRequest, PreflightResponse>(log, "Preflight", (request, call) =>
            preflight(preflightDependencies, request, apiKeyIdOf(call)),
          ),
          // The mirrored reads wait for a rebuilt read model (503 REBUILDING) rather than answer an
          // older status, or "not found" for an intent the replay has not reached yet.
          getIntent: mirrored(
            unaryHandler<GetIntentRequest, GetIntentResponse>(log, "GetIntent", (request) =>
              getIntent(redis.client, request),
            ),
          ),
          listByTransaction: mirrored(
            unaryHandler<ListByTransactionRequest, ListByTransactionResponse>(log, "ListByTransaction", (request) =>
              listByTransaction(redis.client, intentChainIds, request),
            ),
          ),
          listPending: mirrored(
            unaryHandler<ListPendingRequest, ListPendingResponse>(log, "ListPending", (request) =>
              listUserIntents(redis.client, "pending", request),
            ),
          ),
          watchIntents: watchIntents({ feed: changes, log, maxBufferedBytes: config.WATCH_MAX_BUFFERED_BYTES }),
          listExpired: mirrored(
            unaryHandler<ListExpiredRequest, ListExpiredResponse>(log, "ListExpired", (request) =>
              listUserIntents(redis.client, "expired", request),
            ),
          ),
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
    { name: "watches", run: async () => changes.close() },
    { name: "topics", run: () => topics.stop() },
    { name: "publisher", run: () => publisher.close() },
    nats.close,
    kafka.close,
    redis.close,
    {
      name: "tc",
      run: () => {
        tc.close();
        tcHealth.close();
      },
    },
    tracing.stop,
  ],
});
