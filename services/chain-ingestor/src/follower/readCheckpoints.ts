import { randomUUID } from "node:crypto";
import type { Kafka } from "@platform/bus";
import type { Logger } from "@platform/log";
import { type Checkpoint, CheckpointEvent } from "@platform/proto/events/v1/ingestor_checkpoints";
import { TOPICS } from "@platform/proto/topics";

export interface ReadCheckpointsOptions {
  /** The sources whose latest checkpoint is wanted. */
  sourceIds: readonly string[];
  logger: Logger;
  /** How long reading to the end of the topic may take; 60 s by default. */
  timeoutMs?: number;
}

/**
 * The latest committed checkpoint of each source, read from the compacted checkpoint topic up to
 * its current end. Call it after the source's transactional publisher started: registering the
 * transactional id aborted whatever a previous instance left open, so reading committed records up
 * to the high watermark sees exactly what that instance published, and nothing it did not finish.
 *
 * kafkajs has no plain fetch: a throw-away consumer group (read_committed, nothing committed) reads
 * from the beginning and is deleted afterwards.
 */
export async function readLatestCheckpoints(
  kafka: Kafka,
  options: ReadCheckpointsOptions,
): Promise<Map<string, Checkpoint>> {
  const topic = TOPICS.ingestorCheckpoints.name;
  const wanted = new Set(options.sourceIds);
  const found = new Map<string, Checkpoint>();
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `chain-ingestor-checkpoint-reader-${randomUUID()}`;
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    // The last offset to reach per partition (a commit marker may be the last one); empty ones are done.
    const remaining = new Map(
      offsets
        .filter((entry) => BigInt(entry.high) > BigInt(entry.low))
        .map((entry) => [entry.partition, BigInt(entry.high) - 1n] as const),
    );
    if (remaining.size === 0) return found;

    const consumer = kafka.consumer({ groupId, readUncommitted: false, sessionTimeout: 10_000, maxWaitTimeInMs: 250 });
    let done: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const reached = (partition: number, lastOffset: string): void => {
      const target = remaining.get(partition);
      if (target !== undefined && BigInt(lastOffset) >= target) remaining.delete(partition);
      if (remaining.size === 0) done();
    };
    // Batches of nothing but transaction markers never reach eachBatch; their end offset comes here.
    consumer.on(consumer.events.END_BATCH_PROCESS, (event) =>
      reached(event.payload.partition, event.payload.lastOffset),
    );
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          for (const message of batch.messages) {
            const key = message.key?.toString();
            if (key === undefined || !wanted.has(key) || message.value === null) continue;
            try {
              const payload = CheckpointEvent.decode(message.value);
              if (payload.event?.$case === "checkpoint") found.set(key, payload.event.value);
            } catch (error) {
              options.logger.error(
                { err: error, partition: batch.partition, offset: message.offset },
                "undecodable checkpoint record; skipped",
              );
            }
          }
          reached(batch.partition, batch.lastOffset());
        },
      });
      const timeoutMs = options.timeoutMs ?? 60_000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`could not read ${topic} to its end within ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      try {
        await Promise.race([finished, timedOut]);
      } finally {
        clearTimeout(timer);
      }
    } finally {
      await consumer.disconnect().catch(() => undefined);
    }
    await admin.deleteGroups([groupId]).catch(() => undefined);
    return found;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
