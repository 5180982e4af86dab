import type { Kafka } from "@platform/bus";
import type { ConfiguredChain } from "@platform/chain";
import type { Logger } from "@platform/log";
import type { Address, Client } from "viem";
import { pollInterval } from "../follower/followLoop.js";
import { startFollowerSource, type FollowerSource, type FollowerSourceStatus } from "../follower/followerSource.js";
import { commitRecords } from "./commitRecords.js";
import { intentsBlockSource } from "./intentsBlockSource.js";

export interface IntentsSourceOptions {
  kafka: Kafka;
  chain: ConfiguredChain & { contracts: { fullSettler: Address } };
  /** RPC client of the chain; a transport with batching on lets ranges go out in few requests. */
  client: Client;
  pollIntervalMs: number;
  maxBlocksPerStep: number;
  log: Logger;
  /** Blocks kept beyond the finalized depth to detect reorganisations; 16 by default. */
  windowMargin?: number;
  /** Where a source without a checkpoint starts; block 0 by default. */
  startBlock?: bigint;
  /** Within this many blocks of the node's head the source counts as following; 3 by default. */
  followingLagBlocks?: number;
  /** True once the topics the source writes exist; the source waits for it before it starts. */
  topicsReady?: () => boolean;
  /** Another instance took over the transactional id: this process must stop (the orchestrator restarts it). */
  onFenced(error: unknown): void;
  /** The poll interval while expedited (a notified transaction is about to be mined); 50 ms by default. */
  expeditedPollIntervalMs?: number;
  now?: () => Date;
}

export type IntentsSourceStatus = FollowerSourceStatus;

export interface IntentsSource extends FollowerSource {
  /**
   * Polls the chain every `expeditedPollIntervalMs` for the next `forMs`: a notified transaction
   * is about to be mined, and its block should be published as soon as the node has it.
   */
  expedite(forMs: number): void;
}

/**
 * The intents source of one chain: follows its FullSettler from the last checkpoint
 * (`<chainId>:intents`) and publishes every step (removals, events, head, checkpoint) in one Kafka
 * transaction with the transactional id `chain-ingestor-<chain>` (follower/followerSource.ts has
 * the restart, fencing and reorganisation rules).
 */
export function startIntentsSource(options: IntentsSourceOptions): IntentsSource {
  const { chain } = options;
  const now = options.now ?? (() => new Date());
  const sourceId = `${chain.chainId}:intents`;
  // A notification shortens the pauses for a while (expedite); the loop reads the interval before every pause.
  const interval = pollInterval({ normalMs: options.pollIntervalMs, expeditedMs: options.expeditedPollIntervalMs ?? 50, now: () => now().getTime() });
  const source = startFollowerSource({
    ...options,
    now,
    kind: "intents",
    sourceId,
    transactionalId: `chain-ingestor-${chain.name}`,
    blocks: intentsBlockSource({ client: options.client, chainId: chain.chainId, settler: chain.contracts.fullSettler, depths: chain.finality }),
    toRecords: (step, at) => commitRecords(step, { chainId: chain.chainId, sourceId, depths: chain.finality, now: at }),
    pollIntervalMs: interval,
  });
  return { ...source, expedite: (forMs) => interval.expedite(forMs) };
}
