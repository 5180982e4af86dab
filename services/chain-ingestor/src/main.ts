import { createChainClients, loadChainConfig, rpcReadiness } from "@platform/chain";
import { loadFromVariableOrExit } from "@platform/config";
import { createLogger } from "@platform/log";
import { createMetricsRegistry } from "@platform/runtime";
import { kafkaDependency, natsDependency, runBackendService } from "@platform/service";
import { loadChainIngestorConfig } from "./config.js";
import { startIntentsIngestor } from "./intents/intentsIngestor.js";
import { startNetworkIngestor } from "./network/networkIngestor.js";

// Two sources on the generic block follower (src/follower): the intents source follows FullSettler
// events; the network source follows the chain with role "native" (activity, snapshots, price feed).
const config = loadChainIngestorConfig();
const log = createLogger({ service: "chain-ingestor", level: config.LOG_LEVEL });
const chains = await loadFromVariableOrExit("chain-ingestor", "CHAINS_FILE", () => loadChainConfig(config.CHAINS_FILE));
const kafka = kafkaDependency(config.KAFKA_BROKERS, "chain-ingestor", log);
const nats = natsDependency(config.NATS_URL, "chain-ingestor", log);
const rpcChecks = chains.chains.map((chain) => {
  const clients = createChainClients(chain);
  return { name: `rpc:${chain.name}`, probe: () => rpcReadiness(clients.publicClient, 1_000) };
});

const intents = startIntentsIngestor({
  kafka: kafka.client,
  signals: nats.client,
  chains: chains.chains,
  pollIntervalMs: config.INGEST_POLL_INTERVAL_MS,
  maxBlocksPerBatch: config.INGEST_MAX_BLOCKS_PER_BATCH,
  notifiedTxDropAfterMs: config.NOTIFIED_TX_DROP_AFTER_SECONDS * 1_000,
  replicationFactor: config.KAFKA_REPLICATION_FACTOR,
  log,
  // A newer instance owns the transactional id: exit non-zero at once, so the orchestrator notices
  // and this process never publishes alongside it (the orderly shutdown would exit 0).
  onFenced: () => {
    log.fatal("fenced off by another chain-ingestor instance; exiting");
    setTimeout(() => process.exit(1), 100).unref();
    process.exitCode = 1;
  },
});

const network = startNetworkIngestor({
  kafka: kafka.client,
  chains: chains.chains,
  pollIntervalMs: config.INGEST_POLL_INTERVAL_MS,
  maxBlocksPerBatch: config.NETWORK_MAX_BLOCKS_PER_BATCH,
  snapshotEveryBlocks: config.NETWORK_SNAPSHOT_EVERY_BLOCKS,
  holderChunkSize: config.NETWORK_HOLDER_CHUNK_SIZE,
  maxNetuids: config.NETWORK_MAX_NETUIDS,
  replicationFactor: config.KAFKA_REPLICATION_FACTOR,
  log,
  onFenced: () => {
    log.fatal("network source fenced off by another chain-ingestor instance; exiting");
    setTimeout(() => process.exit(1), 100).unref();
    process.exitCode = 1;
  },
});

await runBackendService({
  name: "chain-ingestor",
  log,
  registry: createMetricsRegistry("chain-ingestor"),
  grpc: { host: config.GRPC_HOST, port: config.GRPC_PORT, services: [] },
  ops: { host: config.OPS_HOST, port: config.OPS_PORT },
  dependencies: [kafka.check, nats.check, ...rpcChecks, intents.topicsCheck, intents.check, network.topicsCheck, network.check],
  readinessIntervalMs: config.READINESS_INTERVAL_MS,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  stops: [{ name: "intents", run: () => intents.stop() }, { name: "network", run: () => network.stop() }, nats.close, kafka.close],
});
