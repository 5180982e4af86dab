import type { OutgoingRecord } from "@platform/bus";
import type { ChainRef } from "@platform/proto/common/v1/common";
import type { ChainEventRemoved } from "@platform/proto/events/v1/chain";
import type { CheckpointEvent } from "@platform/proto/events/v1/ingestor_checkpoints";
import { encodePayload, eventTypeOf, TOPICS } from "@platform/proto/topics";
import type { FollowerCommit } from "./blockFollower.js";

/** What a source keeps of each published record, so a reorganisation can name it in a removal. */
export interface PublishedRecord {
  key: string;
  eventId: string;
  eventType: string;
  ref: ChainRef;
}

/**
 * The removal of every record of the step's orphaned blocks, oldest block first, each naming the
 * common ancestor the chain went back to. Each goes out with the removed record's key, so it
 * follows that record in its partition.
 */
export function removalsOf<E extends PublishedRecord>(
  step: FollowerCommit<E>,
  now: Date,
): { key: string; removal: ChainEventRemoved }[] {
  if (step.orphaned.length === 0) return [];
  const ancestor = step.commonAncestor;
  if (ancestor === undefined) throw new Error("orphaned blocks without a common ancestor");
  return step.orphaned.flatMap(({ events }) =>
    events.map((record) => ({
      key: record.key,
      removal: {
        removed: record.ref,
        removedEventId: record.eventId,
        removedEventType: record.eventType,
        key: record.key,
        commonAncestorBlockNumber: ancestor.number.toString(),
        commonAncestorBlockHash: ancestor.hash,
        detectedAt: now.toISOString(),
      },
    })),
  );
}

/** The step's checkpoint (its tip and the kept blocks), the last record of every transaction. */
export function checkpointRecord(
  step: FollowerCommit<unknown>,
  context: { chainId: number; sourceId: string; now: Date },
): OutgoingRecord {
  const checkpoint: CheckpointEvent = {
    event: {
      $case: "checkpoint",
      value: {
        sourceId: context.sourceId,
        chainId: String(context.chainId),
        blockNumber: step.tip.number.toString(),
        blockHash: step.tip.hash,
        recentBlocks: step.window.map((block) => ({ blockNumber: block.number.toString(), blockHash: block.hash })),
        updatedAt: context.now.toISOString(),
      },
    },
  };
  return {
    topic: TOPICS.ingestorCheckpoints.name,
    key: context.sourceId,
    value: encodePayload(TOPICS.ingestorCheckpoints, checkpoint),
    eventType: eventTypeOf(checkpoint),
    schema: TOPICS.ingestorCheckpoints.schema,
  };
}
