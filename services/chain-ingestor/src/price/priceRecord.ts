import type { ChainRef } from "@platform/proto/common/v1/common";
import type { PriceEvent } from "@platform/proto/events/v1/oracle_prices";

/**
 * One record the price source publishes for a block (a round of the feed), kept in the follower's
 * window so that a reorganisation can name it in a removal.
 */
export interface PriceRecord {
  topic: "oracle.prices.v1";
  /** Kafka key: the asset symbol (`TAO`), so every round of an asset keeps its order in one partition. */
  key: string;
  /**
   * The record's `event-id`, derived from the block hash and the round, so a restarted source
   * re-reading a kept block names the same records (see priceEventId).
   */
  eventId: string;
  eventType: "PriceObserved";
  ref: ChainRef;
  payload: PriceEvent;
}

/**
 * `<chainId>:<blockHash>:PriceObserved:<logIndex | "latest">:<roundId>`: the id the network source
 * gave the same rounds (its `networkEventId`), kept so that re-publishing a round, from either source
 * and after any restart, names the same record and consumers deduplicate it.
 */
export function priceEventId(
  chainId: number,
  blockHash: string,
  logIndex: number | undefined,
  roundId: bigint,
): string {
  return [
    String(chainId),
    blockHash.toLowerCase(),
    "PriceObserved",
    logIndex === undefined ? "latest" : String(logIndex),
    roundId.toString(),
  ].join(":");
}
