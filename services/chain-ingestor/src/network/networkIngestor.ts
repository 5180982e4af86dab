import { ensureTopics, type Kafka } from "@platform/bus";
import type { ConfiguredChain } from "@platform/chain";
import type { Logger } from "@platform/log";
import type { DependencyCheck } from "@platform/runtime";
import { followerClient } from "../intents/intentsIngestor.js";
import { startNetworkSource, type NativeChain, type NetworkSource } from "./networkSource.js";

export interface NetworkIngestorOptions {
  kafka: Kafka;
  chains: readonly ConfiguredChain[];
  pollIntervalMs: number;
  maxBlocksPerBatch: number;
  snapshotEveryBlocks: number;
  holderChunkSize: number;
  maxNetuids: number;
  /** The chain file has a `substrate` section: see NetworkBlockSourceOptions.accountsFromNative. */
  accountsFromNative?: boolean;
  replicationFactor: number;
  log: Logger;
  onFenced(error: unknown): void;
}

export interface NetworkIngestor {
  source?: NetworkSource;
  /** Readiness: the native chain is followed within a few blocks (true when no chain has the role). */
  check: DependencyCheck;
  topicsCheck: DependencyCheck;
  stop(): Promise<void>;
}

/**
 * The chain with role "native" once its Multicall3 is configured (every snapshot read is batched
 * through it); like the intents source with a settler, a chain whose contracts are not deployed yet
 * is not followed.
 */
export function nativeChain(chains: readonly ConfiguredChain[]): NativeChain | undefined {
  const chain = chains.find((candidate) => candidate.roles.includes("native"));
  return chain?.contracts.multicall3 === undefined ? undefined : (chain as NativeChain);
}

/** Follows the native network chain, when the chain file has one. */
export function startNetworkIngestor(options: NetworkIngestorOptions): NetworkIngestor {
  const { log } = options;
  const chain = nativeChain(options.chains);
  if (chain === undefined) {
    log.warn("no chain has the role \"native\" with contracts.multicall3: the network source is off");
    return {
      check: { name: "network-following", probe: async () => true },
      topicsCheck: { name: "network-topics", probe: async () => true },
      stop: async () => undefined,
    };
  }
  const topics = ensureTopics(options.kafka, {
    topics: ["chain.network.v1", "ingestor.checkpoints.v1"],
    replicationFactor: options.replicationFactor,
    logger: log,
  });
  const source = startNetworkSource({
    kafka: options.kafka,
    chain,
    client: followerClient(chain),
    pollIntervalMs: options.pollIntervalMs,
    maxBlocksPerStep: options.maxBlocksPerBatch,
    snapshotEveryBlocks: options.snapshotEveryBlocks,
    holderChunkSize: options.holderChunkSize,
    maxNetuids: options.maxNetuids,
    accountsFromNative: options.accountsFromNative === true,
    log: log.child({ chain: chain.name, source: "network" }),
    topicsReady: topics.ready,
    onFenced: options.onFenced,
  });
  log.info(
    { chain: chain.name, chainId: chain.chainId, accountsFromNative: options.accountsFromNative === true },
    "following the native network's EVM face",
  );
  return {
    source,
    check: { name: "network-following", probe: async () => source.status().following },
    topicsCheck: { name: "network-topics", probe: async () => topics.ready() },
    async stop() {
      topics.stop();
      await source.stop();
    },
  };
}
