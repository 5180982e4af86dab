import { createChainClients, loadChainConfig, rpcReadiness } from "@platform/chain";
import { loadFromVariableOrExit } from "@platform/config";
import { createLogger } from "@platform/log";
import { createMetricsRegistry } from "@platform/runtime";
import { kafkaDependency, natsDependency, runBackendService } from "@platform/service";
import { loadChainIngestorConfig } from "./config.js";

// Following FullSettler events and the native network arrives with the intents and data issues;
// the process already watches every chain it will follow, so readiness is truthful now.
const config = loadChainIngestorConfig();
const log = createLogger({ service: "chain-ingestor", level: config.LOG_LEVEL });
const chains = await loadFromVariableOrExit("chain-ingestor", "CHAINS_FILE", () => loadChainConfig(config.CHAINS_FILE));
const kafka = kafkaDependency(config.KAFKA_BROKERS, "chain-ingestor", log);
const nats = natsDependency(config.NATS_URL, "chain-ingestor", log);
const rpcChecks = chains.chains.map((chain) => {
  const clients = createChainClients(chain);
  return { name: `rpc:${chain.name}`, probe: () => rpcReadiness(clients.publicClient, 1_000) };
});

await runBackendService({
  name: "chain-ingestor",
  log,
  registry: createMetricsRegistry("chain-ingestor"),
  grpc: { host: config.GRPC_HOST, port: config.GRPC_PORT, services: [] },
  ops: { host: config.OPS_HOST, port: config.OPS_PORT },
  dependencies: [kafka.check, nats.check, ...rpcChecks],
  readinessIntervalMs: config.READINESS_INTERVAL_MS,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  stops: [nats.close, kafka.close],
});
