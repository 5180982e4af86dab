import { setTimeout as sleep } from "node:timers/promises";
import { ensureTopics, type Kafka } from "@platform/bus";
import type { SubstrateNetwork } from "@platform/chain";
import { retryDelay } from "@platform/errors/base";
import type { Logger } from "@platform/log";
import type { DependencyCheck } from "@platform/runtime";
import type { FollowerSource } from "../../follower/followerSource.js";
import type { IngestMetrics } from "../../follower/ingestMetrics.js";
import { connectNativeChain, type NativeChainReader } from "../node/chainReader.js";
import { withTimeout } from "../node/connection.js";
import { startNativeSource } from "./source.js";

export interface NativeIngestorOptions {
  kafka: Kafka;
  network: SubstrateNetwork | undefined;
  pollIntervalMs: number;
  maxBlocksPerBatch: number;
  replicationFactor: number;
  /** `retention.ms` of the chain topics it creates or brings to spec (CHAIN_TOPICS_RETENTION_MS); 7 days by default. */
  chainTopicsRetentionMs?: number | undefined;
  /** Whether it creates its topics or waits for the topics step (KAFKA_CREATE_TOPICS); true by default. */
  createTopics?: boolean;
  log: Logger;
  onFenced(error: unknown): void;
  /** Where a source without a checkpoint starts; block 0 by default. */
  startBlock?: bigint;
  /** Blocks between full reads of what is kept from events; a day of blocks by default. */
  rescanEveryBlocks?: number;
  /** How the node is reached; connectNativeChain by default (tests pass a faulty one). */
  connect?: (network: SubstrateNetwork) => Promise<NativeChainReader>;
  /** Where the source reports the chain's head, finality and what it published; none without it. */
  metrics?: IngestMetrics;
}

export interface NativeIngestor {
  /** Readiness: connected, and following within a few blocks (true when no network is configured). */
  check: DependencyCheck;
  topicsCheck: DependencyCheck;
  /** The node answers (`rpc:<name>`). */
  rpcCheck?: DependencyCheck;
  source(): FollowerSource | undefined;
  stop(): Promise<void>;
}

/**
 * Follows the native network's Substrate side when the chains file has one. The node may not be
 * up yet: the connection is retried with back-off, and the source starts once it answers (the
 * client reconnects by itself after that).
 */
export function startNativeIngestor(options: NativeIngestorOptions): NativeIngestor {
  const { network, log } = options;
  if (network === undefined) {
    log.warn('the chains file has no "substrate" network: the native source is off');
    return {
      check: { name: "native-following", probe: async () => true },
      topicsCheck: { name: "native-topics", probe: async () => true },
      source: () => undefined,
      stop: async () => undefined,
    };
  }
  const connect = options.connect ?? connectNativeChain;
  const abort = new AbortController();
  const topics = ensureTopics(options.kafka, {
    topics: ["chain.network.v1", "ingestor.checkpoints.v1"],
    replicationFactor: options.replicationFactor,
    ...(options.chainTopicsRetentionMs === undefined ? {} : { chainTopicsRetentionMs: options.chainTopicsRetentionMs }),
    ...(options.createTopics === undefined ? {} : { create: options.createTopics }),
    logger: log,
  });
  const sourceLog = log.child({ network: network.name, source: "native" });
  let reader: NativeChainReader | undefined;
  let source: FollowerSource | undefined;

  const started = (async () => {
    for (let attempt = 1; !abort.signal.aborted; attempt++) {
      try {
        reader = await connect(network);
        break;
      } catch (error) {
        const delay = retryDelay(error, attempt, { firstMs: 500, maxMs: 30_000 });
        if (delay === undefined) {
          sourceLog.error(
            { err: error, rpcUrl: network.rpcUrl },
            "cannot connect to the native network's node; giving up",
          );
          return;
        }
        sourceLog.warn(
          { err: error, rpcUrl: network.rpcUrl, attempt },
          "the native network's node does not answer; retrying",
        );
        await sleep(delay, undefined, { signal: abort.signal }).catch(() => undefined);
      }
    }
    if (reader === undefined) return;
    source = startNativeSource({
      kafka: options.kafka,
      network,
      reader,
      log: sourceLog,
      pollIntervalMs: options.pollIntervalMs,
      maxBlocksPerStep: options.maxBlocksPerBatch,
      topicsReady: topics.ready,
      onFenced: options.onFenced,
      ...(options.startBlock === undefined ? {} : { startBlock: options.startBlock }),
      ...(options.rescanEveryBlocks === undefined ? {} : { rescanEveryBlocks: options.rescanEveryBlocks }),
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    });
    log.info(
      { network: network.name, chainId: network.chainId, rpcUrl: network.rpcUrl },
      "following the native network (Substrate)",
    );
  })();

  return {
    check: { name: "native-following", probe: async () => source?.status().following ?? false },
    topicsCheck: { name: "native-topics", probe: async () => topics.ready() },
    rpcCheck: {
      name: `rpc:${network.name}`,
      probe: async () =>
        reader === undefined
          ? false
          : withTimeout(reader.heads(), 1_000, "heads").then(
              () => true,
              () => false,
            ),
    },
    source: () => source,
    async stop() {
      abort.abort();
      topics.stop();
      await started;
      await source?.stop();
      await reader?.close();
    },
  };
}
