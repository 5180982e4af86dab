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
 * round of the orphaned blocks, the new blocks' rounds, both on oracle.prices.v1, and the
 * checkpoint. A removal has the asset as key like the round it takes back, so it follows that
 * round in the same partition; the market projection matches it by block hash and log index. The
 * source writes no other chain topic, so its Kafka principal needs no write on chain.network.v1.
 */
export function commitPriceRecords(commit: FollowerCommit<PriceRecord>, context: PriceCommitContext): OutgoingRecord[] {
  const records: OutgoingRecord[] = [];
  for (const { key, removal } of removalsOf(commit, context.now)) {
    const payload = { event: { $case: "chainEventRemoved" as const, value: removal } };
    records.push({
      topic: TOPICS.oraclePrices.name,
      key,
      value: encodePayload(TOPICS.oraclePrices, payload),
      eventType: eventTypeOf(payload),
      schema: TOPICS.oraclePrices.schema,
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
