import type { ChainRef } from "@platform/proto/common/v1/common";
import type { IntentsChainEvent } from "@platform/proto/events/v1/chain_intents";

/**
 * One FullSettler event as the intents source publishes it on `chain.intents.v1`, and keeps in the
 * follower's window so a reorganisation can name it in a removal.
 */
export interface IntentsEvent {
  /** The Kafka key: the orderId (0x-prefixed, lowercase). */
  key: string;
  /**
   * The record's `event-id`: `<chainId>:<blockHash>:<logIndex>`, derived from the event's identity
   * so a restarted ingestor, re-reading the kept blocks from the node, names the same records.
   */
  eventId: string;
  /** `OrderOpened`, `OrderFilled`, `OrderSettled` or `OrderRefunded`. */
  eventType: string;
  ref: ChainRef;
  payload: IntentsChainEvent;
}

/** The deterministic event id of a chain log (see IntentsEvent.eventId). */
export function chainEventId(chainId: number | string, blockHash: string, logIndex: number): string {
  return `${chainId}:${blockHash.toLowerCase()}:${logIndex}`;
}
