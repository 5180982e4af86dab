import { ensureTopics, type Kafka } from "@platform/bus";
import type { ConfiguredChain } from "@platform/chain";
import type { Logger } from "@platform/log";
import type { DependencyCheck } from "@platform/runtime";
import { followerClient } from "../evm/followerClient.js";
import type { IngestMetrics } from "../follower/ingestMetrics.js";
import { type PriceFeedChain, type PriceSource, startPriceSource } from "./priceSource.js";

export interface PriceIngestorOptions {
  kafka: Kafka;
  chains: readonly ConfiguredChain[];
  pollIntervalMs: number;
  maxBlocksPerBatch: number;
  /** Where the source starts without a checkpoint; block 0 by default. */
  startBlock?: bigint;
  replicationFactor: number;
  /** `retention.ms` of the chain topics it creates or brings to spec (CHAIN_TOPICS_RETENTION_MS); 7 days by default. */
  chainTopicsRetentionMs?: number | undefined;
  /** Whether it creates its topics or waits for the topics step (KAFKA_CREATE_TOPICS); true by default. */
  createTopics?: boolean;
  log: Logger;
  onFenced(error: unknown): void;
  /** Where the source reports the chain's head, finality and what it published; none without it. */
  metrics?: IngestMetrics;
}

export interface PriceIngestor {
  source?: PriceSource;
  /** Readiness: the feed's chain is followed within a few blocks (true when no chain has a feed). */
  check: DependencyCheck;
  topicsCheck: DependencyCheck;
  stop(): Promise<void>;
}

/** The chain carrying the coin/USD feed, whatever its roles; the chain file allows at most one. */
export function priceFeedChain(chains: readonly ConfiguredChain[]): PriceFeedChain | undefined {
  return chains.find((chain): chain is PriceFeedChain => chain.contracts.priceFeed !== undefined);
}

/** Follows the price feed's chain, when the chain file names a feed. */
export function startPriceIngestor(options: PriceIngestorOptions): PriceIngestor {
  const { log } = options;
  const chain = priceFeedChain(options.chains);
  if (chain === undefined) {
    log.warn("no chain has contracts.priceFeed: the price source is off");
    return {
      check: { name: "price-following", probe: async () => true },
      topicsCheck: { name: "price-topics", probe: async () => true },
      stop: async () => undefined,
    };
  }
  // Removals of undone rounds travel on oracle.prices.v1 with the rounds (commitPriceRecords).
  const topics = ensureTopics(options.kafka, {
    topics: ["oracle.prices.v1", "ingestor.checkpoints.v1"],
    replicationFactor: options.replicationFactor,
    ...(options.chainTopicsRetentionMs === undefined ? {} : { chainTopicsRetentionMs: options.chainTopicsRetentionMs }),
    ...(options.createTopics === undefined ? {} : { create: options.createTopics }),
    logger: log,
  });
  const source = startPriceSource({
    kafka: options.kafka,
    chain,
    client: followerClient(chain),
    pollIntervalMs: options.pollIntervalMs,
    maxBlocksPerStep: options.maxBlocksPerBatch,
    ...(options.startBlock === undefined ? {} : { startBlock: options.startBlock }),
    log: log.child({ chain: chain.name, source: "price" }),
    topicsReady: topics.ready,
    onFenced: options.onFenced,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
  });
  log.info(
    { chain: chain.name, chainId: chain.chainId, priceFeed: chain.contracts.priceFeed },
    "following the coin/USD price feed",
  );
  return {
    source,
    check: { name: "price-following", probe: async () => source.status().following },
    topicsCheck: { name: "price-topics", probe: async () => topics.ready() },
    async stop() {
      topics.stop();
      await source.stop();
    },
  };
}
