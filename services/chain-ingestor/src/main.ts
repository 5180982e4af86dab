import { type ConfiguredChain, createChainClients, loadChainConfig, rpcReadiness } from "@platform/chain";
import { loadFromVariableOrExit } from "@platform/config";
import { createLogger } from "@platform/log";
import { createMetricsRegistry, type DependencyCheck, type ShutdownStep } from "@platform/runtime";
import {
  kafkaCredentialsOrExit,
  kafkaDependency,
  kafkaTlsOf,
  natsConnectionOf,
  natsDependency,
  runBackendService,
} from "@platform/service";
import { startTracingOrExit } from "@platform/telemetry";
import { loadChainIngestorConfig } from "./config.js";
import { ingestMetrics } from "./follower/ingestMetrics.js";
import { settlerChains, startIntentsIngestor } from "./intents/intentsIngestor.js";
import { startNativeIngestor } from "./native/source/ingestor.js";
import { priceFeedChain, startPriceIngestor } from "./price/priceIngestor.js";

// Three sources on the generic block follower (src/follower): the intents source follows FullSettler
// events; the native source follows the network's Substrate side, the real runtime (every network
// read model: account activity and balances, pools, emissions, subnets, metagraphs, holders and
// totals, from runtime storage and events); the price source follows the chain carrying the coin/USD
// feed (`contracts.priceFeed`, any role).
// INGEST_SOURCES picks which run here, so each source can be its own single-replica Deployment;
// readiness then covers only what this process uses.
const config = loadChainIngestorConfig();
// Before any connection opens, so the Redis client and the gRPC server are traced (off by default).
const tracing = startTracingOrExit("chain-ingestor");
// Checked before any connection opens, like the rest of the configuration.
const kafkaCredentials = kafkaCredentialsOrExit("chain-ingestor", config);
const log = createLogger({ service: "chain-ingestor", level: config.LOG_LEVEL });
const chains = await loadFromVariableOrExit("chain-ingestor", "CHAINS_FILE", () => loadChainConfig(config.CHAINS_FILE));
const kafka = kafkaDependency(config.KAFKA_BROKERS, "chain-ingestor", log, kafkaCredentials, kafkaTlsOf(config));
// Created before the sources: each reports its chain's head and what it published here.
const registry = createMetricsRegistry("chain-ingestor");
const metrics = ingestMetrics(registry);
log.info({ sources: config.INGEST_SOURCES }, "sources configured");

// A newer instance owns a transactional id: exit non-zero at once, so the orchestrator notices and
// this process never publishes alongside it (the orderly shutdown would exit 0).
const exitWhenFenced = (source: string) => () => {
  log.fatal({ source }, "fenced off by another chain-ingestor instance; exiting");
  setTimeout(() => process.exit(1), 100).unref();
  process.exitCode = 1;
};

const checks: DependencyCheck[] = [kafka.check];
const stops: ShutdownStep[] = [];
const followed = new Map<number, ConfiguredChain>();

if (config.INGEST_SOURCES.includes("intents")) {
  // The config schema requires NATS_URL when the intents source is selected.
  const nats = natsDependency(natsConnectionOf({ ...config, NATS_URL: config.NATS_URL! }), "chain-ingestor", log);
  const intents = startIntentsIngestor({
    kafka: kafka.client,
    signals: nats.client,
    chains: chains.chains,
    pollIntervalMs: config.INGEST_POLL_INTERVAL_MS,
    maxBlocksPerBatch: config.INGEST_MAX_BLOCKS_PER_BATCH,
    notifiedTxDropAfterMs: config.NOTIFIED_TX_DROP_AFTER_SECONDS * 1_000,
    notifiedTxMaxTracked: config.NOTIFIED_TX_MAX_TRACKED,
    notifiedTxMaxTrackedPerKey: config.NOTIFIED_TX_MAX_TRACKED_PER_KEY,
    notifiedTxRequestsPerSecond: config.NOTIFIED_TX_RPC_PER_SECOND,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR,
    chainTopicsRetentionMs: config.CHAIN_TOPICS_RETENTION_MS,
    createTopics: config.KAFKA_CREATE_TOPICS,
    log,
    metrics,
    onFenced: exitWhenFenced("intents"),
  });
  for (const chain of settlerChains(chains.chains)) followed.set(chain.chainId, chain);
  checks.push(nats.check, intents.topicsCheck, intents.check);
  stops.push({ name: "intents", run: () => intents.stop() }, nats.close);
}

if (config.INGEST_SOURCES.includes("native")) {
  const native = startNativeIngestor({
    kafka: kafka.client,
    network: chains.substrate,
    pollIntervalMs: config.NATIVE_POLL_INTERVAL_MS,
    maxBlocksPerBatch: config.NATIVE_MAX_BLOCKS_PER_BATCH,
    rescanEveryBlocks: config.NATIVE_RESCAN_EVERY_BLOCKS,
    ...(config.NATIVE_START_BLOCK === undefined ? {} : { startBlock: BigInt(config.NATIVE_START_BLOCK) }),
    replicationFactor: config.KAFKA_REPLICATION_FACTOR,
    chainTopicsRetentionMs: config.CHAIN_TOPICS_RETENTION_MS,
    createTopics: config.KAFKA_CREATE_TOPICS,
    log,
    metrics,
    onFenced: exitWhenFenced("native"),
  });
  checks.push(native.topicsCheck, native.check, ...(native.rpcCheck === undefined ? [] : [native.rpcCheck]));
  stops.push({ name: "native", run: () => native.stop() });
}

if (config.INGEST_SOURCES.includes("price")) {
  const price = startPriceIngestor({
    kafka: kafka.client,
    chains: chains.chains,
    pollIntervalMs: config.INGEST_POLL_INTERVAL_MS,
    maxBlocksPerBatch: config.INGEST_MAX_BLOCKS_PER_BATCH,
    ...(config.PRICE_START_BLOCK === undefined ? {} : { startBlock: BigInt(config.PRICE_START_BLOCK) }),
    replicationFactor: config.KAFKA_REPLICATION_FACTOR,
    chainTopicsRetentionMs: config.CHAIN_TOPICS_RETENTION_MS,
    createTopics: config.KAFKA_CREATE_TOPICS,
    log,
    metrics,
    onFenced: exitWhenFenced("price"),
  });
  const feedChain = priceFeedChain(chains.chains);
  if (feedChain !== undefined) followed.set(feedChain.chainId, feedChain);
  checks.push(price.topicsCheck, price.check);
  stops.push({ name: "price", run: () => price.stop() });
}

// Only the RPC endpoints of chains a selected source follows decide readiness.
for (const chain of followed.values()) {
  const clients = createChainClients(chain);
  checks.push({ name: `rpc:${chain.name}`, probe: () => rpcReadiness(clients.publicClient, 1_000) });
}

await runBackendService({
  name: "chain-ingestor",
  log,
  registry,
  grpc: { host: config.GRPC_HOST, port: config.GRPC_PORT, services: [] },
  ops: { host: config.OPS_HOST, port: config.OPS_PORT },
  dependencies: checks,
  readinessIntervalMs: config.READINESS_INTERVAL_MS,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  stops: [...stops, kafka.close, tracing.stop],
});
