import { ingestorTransactionalId, type Kafka } from "@platform/bus";
import type { SubstrateNetwork } from "@platform/chain";
import type { Logger } from "@platform/log";
import { type FollowerSource, type FollowerSourceStatus, startFollowerSource } from "../../follower/followerSource.js";
import { pollInterval } from "../../follower/followLoop.js";
import { finalizedByDepth, type IngestMetrics } from "../../follower/ingestMetrics.js";
import type { NativeChainReader } from "../node/chainReader.js";
import { commitNetworkRecords } from "../records/commitNetworkRecords.js";
import { publishedOnly } from "../records/networkRecord.js";
import { nativeBlockSource } from "./blockSource.js";
import { nativeHeaderReader } from "./headerReader.js";

export interface NativeSourceOptions {
  kafka: Kafka;
  network: SubstrateNetwork;
  reader: NativeChainReader;
  log: Logger;
  /** Pause between polls once caught up; a new-head notification shortens it. */
  pollIntervalMs: number;
  maxBlocksPerStep: number;
  topicsReady?: () => boolean;
  onFenced(error: unknown): void;
  /** Where a source without a checkpoint starts; block 0 by default. */
  startBlock?: bigint;
  networkPartitions?: number;
  /** Blocks between full reads of what is kept from events (nativeBlockSource); a day of blocks by default. */
  rescanEveryBlocks?: number;
  /** Where the source reports the chain's head, finality and what it published; none without it. */
  metrics?: IngestMetrics;
}

export type NativeSourceStatus = FollowerSourceStatus;

/**
 * The Substrate-native network source: follows the network's best chain from its checkpoint
 * (`<chainId>:native`) and publishes each step's account activity and BlockSeen records on
 * chain.network.v1 with the checkpoint in one Kafka transaction (transactional id
 * `chain-ingestor-native-<name>`); the restart, fencing and reorganisation rules are the
 * follower's (follower/followerSource.ts), shared with the EVM sources.
 */
export function startNativeSource(options: NativeSourceOptions): FollowerSource {
  const { network, reader } = options;
  const sourceId = `${network.chainId}:native`;
  const headers = nativeHeaderReader(reader);
  const interval = pollInterval({ normalMs: options.pollIntervalMs, expeditedMs: 25 });
  reader
    .onNewHead(() => interval.expedite(500))
    .catch((error: unknown) => options.log.warn({ err: error }, "no new-head subscription; polling only"));
  return startFollowerSource({
    kafka: options.kafka,
    log: options.log,
    maxBlocksPerStep: options.maxBlocksPerStep,
    ...(options.topicsReady === undefined ? {} : { topicsReady: options.topicsReady }),
    ...(options.startBlock === undefined ? {} : { startBlock: options.startBlock }),
    onFenced: options.onFenced,
    chain: { chainId: network.chainId, finality: network.finality },
    headers,
    kind: "native",
    sourceId,
    transactionalId: ingestorTransactionalId("native", network.name),
    blocks: nativeBlockSource({
      reader,
      network,
      finalizedHead: headers.finalizedHead,
      ...(options.networkPartitions === undefined ? {} : { networkPartitions: options.networkPartitions }),
      ...(options.rescanEveryBlocks === undefined ? {} : { rescanEveryBlocks: options.rescanEveryBlocks }),
    }),
    toRecords: (step, now) => commitNetworkRecords(step, { chainId: network.chainId, sourceId, now }),
    windowEvent: publishedOnly,
    pollIntervalMs: interval,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    // As nativeFinality judges a block: finalized by GRANDPA and the configured depth below the best block.
    finalizedBlock: (latest) => {
      const grandpa = headers.finalizedHead();
      if (grandpa === undefined) return undefined;
      const byDepth = finalizedByDepth(latest, network.finality.finalizedDepth);
      return grandpa < byDepth ? grandpa : byDepth;
    },
  });
}
