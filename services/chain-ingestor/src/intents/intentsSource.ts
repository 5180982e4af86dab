import { ingestorTransactionalId } from "@platform/bus";
import type { ConfiguredChain } from "@platform/chain";
import type { Address } from "viem";
import { rpcHeaderReader } from "../evm/rpcHeaderReader.js";
import {
  type FollowerSettings,
  type FollowerSource,
  type FollowerSourceStatus,
  startFollowerSource,
} from "../follower/followerSource.js";
import { pollInterval } from "../follower/followLoop.js";
import { commitRecords } from "./commitRecords.js";
import { intentsBlockSource } from "./intentsBlockSource.js";

export interface IntentsSourceOptions extends FollowerSettings {
  chain: ConfiguredChain & { contracts: { fullSettler: Address } };
  pollIntervalMs: number;
  /** The poll interval while expedited (a notified transaction is about to be mined); 50 ms by default. */
  expeditedPollIntervalMs?: number;
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
 * transaction with the transactional id `chain-ingestor-intents-<chain>` (libs/bus ingestorTransactionalId) (follower/followerSource.ts has
 * the restart, fencing and reorganisation rules).
 */
export function startIntentsSource(options: IntentsSourceOptions): IntentsSource {
  const { chain } = options;
  const now = options.now ?? (() => new Date());
  const sourceId = `${chain.chainId}:intents`;
  // A notification shortens the pauses for a while (expedite); the loop reads the interval before every pause.
  const interval = pollInterval({
    normalMs: options.pollIntervalMs,
    expeditedMs: options.expeditedPollIntervalMs ?? 50,
    now: () => now().getTime(),
  });
  const source = startFollowerSource({
    ...options,
    headers: rpcHeaderReader(options.client),
    now,
    kind: "intents",
    sourceId,
    transactionalId: ingestorTransactionalId("intents", chain.name),
    blocks: intentsBlockSource({
      client: options.client,
      chainId: chain.chainId,
      settler: chain.contracts.fullSettler,
      depths: chain.finality,
    }),
    toRecords: (step, at) => commitRecords(step, { chainId: chain.chainId, sourceId, depths: chain.finality, now: at }),
    pollIntervalMs: interval,
  });
  return { ...source, expedite: (forMs) => interval.expedite(forMs) };
}
