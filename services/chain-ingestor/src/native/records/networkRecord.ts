import type { ChainRef } from "@platform/proto/common/v1/common";
import type { NetworkChainEvent } from "@platform/proto/events/v1/chain_network";

/**
 * One record the native source publishes for a block, kept in the follower's window so that a
 * reorganisation can name it in a removal.
 */
export type NetworkRecord = NetworkRecordHeader & { topic: "chain.network.v1"; payload: NetworkChainEvent };

interface NetworkRecordHeader {
  /** Kafka key: an account's public key, `netuid:<n>` or `network`. */
  key: string;
  /**
   * The record's `event-id`, derived from the block hash and what the record is, so a restarted
   * ingestor re-reading a kept block names the same records.
   */
  eventId: string;
  /** The payload's oneof case in PascalCase (`AccountActivity`, `PoolSnapshot`...). */
  eventType: string;
  ref: ChainRef;
}

export function networkEventId(chainId: number, blockHash: string, ...parts: (string | number)[]): string {
  return [String(chainId), blockHash.toLowerCase(), ...parts.map(String)].join(":");
}

export const netuidKey = (netuid: number): string => `netuid:${netuid}`;
export const NETWORK_KEY = "network";

/**
 * What the follower's window keeps of a published record: its key, id, type and block, which a
 * removal names, without the payload (at mainnet size an epoch block's records hold thousands of
 * balance snapshots and holder positions; 19 blocks of them were ~100 MB of the source's heap).
 */
export function publishedOnly(record: NetworkRecord): NetworkRecord {
  return {
    topic: record.topic,
    key: record.key,
    eventId: record.eventId,
    eventType: record.eventType,
    ref: record.ref,
    payload: {},
  };
}
