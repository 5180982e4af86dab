import type { OutgoingRecord } from "@platform/bus";
import type { NetworkChainEvent } from "@platform/proto/events/v1/chain_network";
import { encodePayload, eventTypeOf, TOPICS } from "@platform/proto/topics";
import type { FollowerCommit } from "../../follower/blockFollower.js";
import { checkpointRecord, removalsOf } from "../../follower/stepRecords.js";
import type { NetworkRecord } from "./networkRecord.js";

export interface NetworkCommitContext {
  chainId: number;
  /** The checkpoint's key, e.g. `945:native`. */
  sourceId: string;
  now: Date;
}

/**
 * Everything one follower step publishes, in one Kafka transaction: a ChainEventRemoved for every
 * record of the orphaned blocks, the new blocks' records, and the checkpoint. Each removal goes out
 * with the removed record's key, which keeps it behind the record in its partition.
 */
export function commitNetworkRecords(
  commit: FollowerCommit<NetworkRecord>,
  context: NetworkCommitContext,
): OutgoingRecord[] {
  const records: OutgoingRecord[] = [];
  for (const { key, removal } of removalsOf(commit, context.now))
    records.push(networkRecord(key, { event: { $case: "chainEventRemoved", value: removal } }));
  for (const block of commit.blocks) {
    for (const record of block.events) records.push(networkRecord(record.key, record.payload, record.eventId));
  }
  records.push(checkpointRecord(commit, context));
  return records;
}

function networkRecord(key: string, payload: NetworkChainEvent, eventId?: string): OutgoingRecord {
  return {
    topic: TOPICS.chainNetwork.name,
    key,
    value: encodePayload(TOPICS.chainNetwork, payload),
    eventType: eventTypeOf(payload),
    schema: TOPICS.chainNetwork.schema,
    ...(eventId === undefined ? {} : { eventId }),
  };
}
