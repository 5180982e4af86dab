import type { OutgoingRecord } from "@platform/bus";
import type { Finality as FinalityDepths } from "@platform/chain";
import type { IntentsChainEvent } from "@platform/proto/events/v1/chain_intents";
import { encodePayload, eventTypeOf, TOPICS } from "@platform/proto/topics";
import type { FollowerCommit } from "../follower/blockFollower.js";
import { blockAtDepth, finalityAt } from "../follower/finality.js";
import { checkpointRecord, removalsOf } from "../follower/stepRecords.js";
import type { IntentsEvent } from "./intentsEvent.js";

export interface CommitContext {
  chainId: number;
  /** The checkpoint's key, e.g. `31337:intents`. */
  sourceId: string;
  depths: FinalityDepths;
  now: Date;
}

/**
 * Everything one follower step publishes, in order: a removal for every event of the orphaned
 * blocks (same key as the removed record, so it follows it in its partition), the new blocks'
 * events, the chain head, and the checkpoint. They go out in one Kafka transaction.
 */
export function commitRecords(commit: FollowerCommit<IntentsEvent>, context: CommitContext): OutgoingRecord[] {
  const records: OutgoingRecord[] = [];
  const intents = (key: string, payload: IntentsChainEvent, eventId?: string): OutgoingRecord => ({
    topic: TOPICS.chainIntents.name,
    key,
    value: encodePayload(TOPICS.chainIntents, payload),
    eventType: eventTypeOf(payload),
    schema: TOPICS.chainIntents.schema,
    ...(eventId === undefined ? {} : { eventId }),
  });

  for (const { key, removal } of removalsOf(commit, context.now))
    records.push(intents(key, { event: { $case: "chainEventRemoved", value: removal } }));

  for (const block of commit.blocks) {
    for (const event of block.events) records.push(intents(event.key, event.payload, event.eventId));
  }

  const tip = commit.tip;
  const latest = commit.latestBlockNumber;
  records.push(
    intents(`head:${context.chainId}`, {
      event: {
        $case: "chainHeadAdvanced",
        value: {
          head: {
            chainId: String(context.chainId),
            blockNumber: tip.number.toString(),
            blockHash: tip.hash,
            parentHash: tip.parentHash,
            blockTimestamp: new Date(Number(tip.timestamp) * 1_000).toISOString(),
            finality: finalityAt(tip.number, latest, context.depths),
          },
          safeBlockNumber: blockAtDepth(latest, context.depths.safeDepth).toString(),
          finalizedBlockNumber: blockAtDepth(latest, context.depths.finalizedDepth).toString(),
        },
      },
    }),
  );

  records.push(checkpointRecord(commit, context));
  return records;
}
