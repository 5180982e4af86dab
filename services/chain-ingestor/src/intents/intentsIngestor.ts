import { ensureTopics, type Kafka } from "@platform/bus";
import type { ConfiguredChain } from "@platform/chain";
import type { Logger } from "@platform/log";
import type { DependencyCheck } from "@platform/runtime";
import { type Signals, subjects } from "@platform/signals";
import type { Address } from "viem";
import { followerClient } from "../evm/followerClient.js";
import type { IngestMetrics } from "../follower/ingestMetrics.js";
import { type IntentsSource, startIntentsSource } from "./intentsSource.js";
import { createNotifiedTxWatcher, type NotifiedTxWatcher } from "./notifiedTxWatcher.js";
import { watcherClient } from "./watcherClient.js";

export interface IntentsIngestorOptions {
  kafka: Kafka;
  signals: Signals;
  /** Every configured chain; those with a FullSettler are followed. */
  chains: readonly ConfiguredChain[];
  pollIntervalMs: number;
  maxBlocksPerBatch: number;
  notifiedTxDropAfterMs: number;
  /** Notified transactions followed at once, in all and per API key (NOTIFIED_TX_MAX_TRACKED, _PER_KEY). */
  notifiedTxMaxTracked?: number;
  notifiedTxMaxTrackedPerKey?: number;
  /** Receipt look-ups per second per chain for notified transactions (NOTIFIED_TX_RPC_PER_SECOND); 10 by default. */
  notifiedTxRequestsPerSecond?: number;
  /** Replication of the topics the ingestor creates at start-up (chain.intents.v1, intents.notifications.v1, ingestor.checkpoints.v1). */
  replicationFactor: number;
  /** `retention.ms` of the chain topics it creates or brings to spec (CHAIN_TOPICS_RETENTION_MS); 7 days by default. */
  chainTopicsRetentionMs?: number | undefined;
  /** Whether it creates its topics or waits for the topics step (KAFKA_CREATE_TOPICS); true by default. */
  createTopics?: boolean;
  log: Logger;
  onFenced(error: unknown): void;
  /** Where each source reports its chain's head, finality and what it published; none without it. */
  metrics?: IngestMetrics;
}

export interface IntentsIngestor {
  sources: readonly IntentsSource[];
  watcher: NotifiedTxWatcher;
  /** Readiness: every followed chain is caught up within a few blocks. */
  check: DependencyCheck;
  /** Readiness: the topics exist with their settings. */
  topicsCheck: DependencyCheck;
  stop(): Promise<void>;
}

type SettlerChain = ConfiguredChain & { contracts: { fullSettler: Address } };

/** The chains the intents mirror follows: origin and destination chains that have a FullSettler. */
export function settlerChains(chains: readonly ConfiguredChain[]): SettlerChain[] {
  return chains.filter(
    (chain): chain is SettlerChain =>
      chain.contracts.fullSettler !== undefined &&
      (chain.roles.includes("origin") || chain.roles.includes("destination")),
  );
}

/** How long a chain is polled quickly after a notification: inclusion usually takes a few blocks. */
const EXPEDITE_AFTER_HINT_MS = 15_000;

/** Follows every settler chain and answers `intents.notified` hints. */
export function startIntentsIngestor(options: IntentsIngestorOptions): IntentsIngestor {
  const { log } = options;
  const followed = settlerChains(options.chains);
  // Created (with their settings) before anything is published; retried in the background while Kafka is away.
  const topics = ensureTopics(options.kafka, {
    topics: ["chain.intents.v1", "intents.notifications.v1", "ingestor.checkpoints.v1"],
    replicationFactor: options.replicationFactor,
    ...(options.chainTopicsRetentionMs === undefined ? {} : { chainTopicsRetentionMs: options.chainTopicsRetentionMs }),
    ...(options.createTopics === undefined ? {} : { create: options.createTopics }),
    logger: log,
  });
  const clients = new Map(followed.map((chain) => [chain.chainId, followerClient(chain)] as const));
  const sources = followed.map((chain) =>
    startIntentsSource({
      kafka: options.kafka,
      chain,
      client: clients.get(chain.chainId)!,
      pollIntervalMs: options.pollIntervalMs,
      maxBlocksPerStep: options.maxBlocksPerBatch,
      log: log.child({ chain: chain.name }),
      topicsReady: topics.ready,
      onFenced: options.onFenced,
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    }),
  );
  // Notifications are user-triggered: their look-ups go through a client of their own, with its own
  // request rate, never through the follower's (whose batches and retries they would share).
  const requestsPerSecond = options.notifiedTxRequestsPerSecond ?? 10;
  const watcher = createNotifiedTxWatcher({
    chains: followed.map((chain, index) => ({
      chainId: chain.chainId,
      client: watcherClient(chain, { requestsPerSecond }),
      settler: chain.contracts.fullSettler,
      publish: (record) => sources[index]!.publish([record]),
    })),
    dropAfterMs: options.notifiedTxDropAfterMs,
    retryIntervalMs: Math.max(250, options.pollIntervalMs),
    ...(options.notifiedTxMaxTracked === undefined ? {} : { maxTracked: options.notifiedTxMaxTracked }),
    ...(options.notifiedTxMaxTrackedPerKey === undefined
      ? {}
      : { maxTrackedPerKey: options.notifiedTxMaxTrackedPerKey }),
    log,
  });
  const unsubscribe = options.signals.subscribe(subjects.intentsNotified, (payload) => {
    watcher.handle(payload);
    // The notified transaction is about to be mined: poll its chain often for a while, so its
    // block (and the Open in it) is published as soon as the node has it, through the usual path.
    const chainId =
      typeof payload === "object" && payload !== null ? String((payload as { chainId?: unknown }).chainId) : undefined;
    sources[followed.findIndex((chain) => String(chain.chainId) === chainId)]?.expedite(EXPEDITE_AFTER_HINT_MS);
  });
  log.info(
    {
      chains: followed.map((chain) => ({
        name: chain.name,
        chainId: chain.chainId,
        fullSettler: chain.contracts.fullSettler,
      })),
    },
    "following FullSettler events",
  );

  return {
    sources,
    watcher,
    check: { name: "following", probe: async () => sources.every((source) => source.status().following) },
    topicsCheck: { name: "topics", probe: async () => topics.ready() },
    async stop() {
      topics.stop();
      unsubscribe();
      watcher.stop();
      await Promise.all(sources.map((source) => source.stop()));
    },
  };
}
