import { keysForEveryPartition } from "@platform/bus";
import type { ChainRef } from "@platform/proto/common/v1/common";
import type { NetworkChainEvent } from "@platform/proto/events/v1/chain_network";
import { eventTypeOf } from "@platform/proto/topics";
import { type NetworkRecord, networkEventId } from "./networkRecord.js";

/**
 * A block's BlockSeen records, one per partition of chain.network.v1, to go out after every other
 * record of the block: they tell a consumer which blocks every partition has delivered in full (see
 * the message in chain_network.proto). Built for a partition count once, then per block.
 */
export function blockSeenRecords(partitions: number): (context: { chainId: number; ref: ChainRef }) => NetworkRecord[] {
  const keys = keysForEveryPartition("block-seen:", partitions);
  return ({ chainId, ref }) => {
    const payload: NetworkChainEvent = { event: { $case: "blockSeen", value: { ref, partitions } } };
    const eventType = eventTypeOf(payload);
    return keys.map((key) => ({
      topic: "chain.network.v1",
      key,
      eventId: networkEventId(chainId, ref.blockHash, eventType, key),
      eventType,
      ref,
      payload,
    }));
  };
}
