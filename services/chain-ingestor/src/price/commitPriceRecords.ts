import type { OutgoingRecord } from "@platform/bus";
import { encodePayload, eventTypeOf, TOPICS } from "@platform/proto/topics";
import type { FollowerCommit } from "../follower/blockFollower.js";
import { checkpointRecord, removalsOf } from "../follower/stepRecords.js";
import type { PriceRecord } from "./priceRecord.js";

export interface PriceCommitContext {
  chainId: number;
  /** The checkpoint's key, e.g. `31337:price`. */
  sourceId: string;
  now: Date;
}

/**
 * Everything one follower step publishes, in one Kafka transaction: a ChainEventRemoved for every
 * round of the orphaned blocks, the new blocks' rounds on oracle.prices.v1, and the checkpoint.
 * PriceEvent has no removal case, so a removal travels on chain.network.v1 keyed by the asset; the
 * market projection reads both topics and matches it to the round by block hash and log index,
 * whichever of the two it reads first.
 */
export function commitPriceRecords(commit: FollowerCommit<PriceRecord>, context: PriceCommitContext): OutgoingRecord[] {
  const records: OutgoingRecord[] = [];
  for (const { key, removal } of removalsOf(commit, context.now)) {
    const payload = { event: { $case: "chainEventRemoved" as const, value: removal } };
    records.push({
      topic: TOPICS.chainNetwork.name,
      key,
      value: encodePayload(TOPICS.chainNetwork, payload),
      eventType: eventTypeOf(payload),
      schema: TOPICS.chainNetwork.schema,
    });
  }
  for (const block of commit.blocks) {
    for (const record of block.events) {
      records.push({
        topic: TOPICS.oraclePrices.name,
        key: record.key,
        value: encodePayload(TOPICS.oraclePrices, record.payload),
        eventType: record.eventType,
        schema: TOPICS.oraclePrices.schema,
        eventId: record.eventId,
      });
    }
  }
  records.push(checkpointRecord(commit, context));
  return records;
}
