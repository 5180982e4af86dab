import { retryDelay } from "@platform/errors/base";
import type { Logger } from "@platform/log";
import type { Batch, Consumer, EachBatchPayload, Kafka } from "kafkajs";
import { inConsumeSpan } from "./consumeSpan.js";
import { type ConsumedRecord, fromKafkaMessage } from "./envelope.js";
import type { ProjectionProgress } from "./projectionMetrics.js";

/*
 * Exactly-once projections on an at-least-once bus.
 *
 * Kafka delivers a record to a consumer group at least once: after a crash, a rebalance or a
 * failed batch, records are read again. A projection becomes exactly-once by keeping its
 * position next to its data:
 *
 * 1. Only committed facts are read (`read_committed`): records of aborted or still-open
 *    transactions (an ingestor block that did not finish) are never delivered.
 * 2. The projection writes each batch's read-model change and the batch's `lastOffset` for
 *    that partition in one atomic Redis transaction (MULTI/EXEC). Either both are stored or
 *    neither, so the stored offset is exactly the last record whose effect is in the read model.
 * 3. The consumer never commits offsets to Kafka. It reads the stored offsets (`loadOffsets`) of
 *    every partition of its topics before it joins the group, and on joining seeks each assigned
 *    partition to the record after its stored offset, so the first fetch already reads from
 *    there. The first batch of each assignment is still checked against the stored offset, read
 *    again then (another member may have advanced a partition since): a fetch from elsewhere is
 *    dropped and followed by a seek, and records at or below the stored offset that arrive anyway
 *    (a fetch already in flight) are dropped before `handleBatch`. A crash after the Redis write but before anything else
 *    therefore replays nothing, and a crash before it replays the whole batch, which was
 *    never applied.
 * 4. A member that lost a partition in a rebalance may still be finishing a batch while the
 *    new owner starts. `handleBatch` gets `previousOffset`, the offset the batch continues
 *    from; a projection that writes only when the stored offset still equals it (a compare in
 *    a Lua script, or WATCH) also rules out that overlap.
 * 5. A rebuild runs the projection into a fresh key generation whose `loadOffsets` answers
 *    undefined, so it starts from offset zero, and switches over once it has caught up.
 */

export interface ProjectionBatch {
  topic: string;
  partition: number;
  /** The records to apply, in offset order; never empty. */
  messages: ConsumedRecord[];
  /** The offset of the last record in `messages`: store it with the read-model change. */
  lastOffset: string;
  /** The stored offset this batch continues from; undefined when nothing was applied before. */
  previousOffset: string | undefined;
  /** Tells the group coordinator this member is alive; call it during long batches. */
  heartbeat(): Promise<void>;
}

export interface ProjectionConsumerOptions {
  groupId: string;
  topics: string[];
  /** Read only committed transactions. Projections always do; true by default. */
  readCommitted?: boolean;
  /** The offset of the last record the projection applied on that partition, or undefined. */
  loadOffsets(topic: string, partition: number): Promise<string | undefined>;
  /** Applies the batch and stores `lastOffset` atomically with it; throwing retries the batch. */
  handleBatch(batch: ProjectionBatch): Promise<void>;
  logger?: Logger;
  /**
   * How long the coordinator waits for a heartbeat before it reassigns the member's partitions;
   * 10 s by default (kafkajs: 30 s). It is also how long a replaced consumer waits to rejoin after
   * a broker outage, as the group keeps the old member until its session expires. Long batches
   * call `heartbeat()`.
   */
  sessionTimeoutMs?: number;
  /** How long a fetch waits for records when there are none; 1 s by default (latency vs. requests). */
  maxWaitTimeMs?: number;
  /** Told where each assigned partition stands, for the lag metrics (projectionMetrics.ts). */
  progress?: ProjectionProgress;
}

export interface ProjectionConsumer {
  /** Leaves the group and disconnects; resolves after the batch in progress, if any. */
  stop(): Promise<void>;
}

/** Where the partitions stand: shared by the consumers run in turn and their batch handlers. */
interface PartitionPositions {
  /** The position per partition of the current assignment, loaded on its first batch. */
  partitions: Map<string, PartitionState>;
  /** The next offset to read per partition, as last known: where a new assignment seeks to. */
  known: Map<string, bigint>;
}

interface PartitionState {
  /** The next offset to apply: the stored offset plus one, or 0 when nothing was applied. */
  next: bigint;
  /** The offset the next batch continues from, as stored by the projection. */
  previous: string | undefined;
  /** Set once this assignment's first batch was checked against `next` (and a seek issued). */
  aligned: boolean;
}

/**
 * Runs a consumer group member for a projection: manual offsets kept by the projection,
 * read_committed, batches per partition. Resolves once the consumer runs; a failure to start
 * (no broker, say) rejects. Afterwards it recovers by itself: kafkajs restarts the consumer
 * after retriable errors, and this function replaces a consumer kafkajs gave up on (it does
 * for some errors of a broker outage, such as "group coordinator not found"), backing off
 * from 1 s to 30 s.
 */
export async function runProjectionConsumer(
  kafka: Kafka,
  options: ProjectionConsumerOptions,
): Promise<ProjectionConsumer> {
  const { groupId, logger } = options;
  const positions: PartitionPositions = { partitions: new Map(), known: new Map() };
  const { partitions, known } = positions;
  let current: Consumer | undefined;
  let stopping = false;
  let failures = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  let restarting: Promise<void> | undefined;

  const start = async (): Promise<Consumer> => {
    const consumer = kafka.consumer({
      groupId,
      readUncommitted: !(options.readCommitted ?? true),
      sessionTimeout: options.sessionTimeoutMs ?? 10_000,
      maxWaitTimeInMs: options.maxWaitTimeMs ?? 1_000,
    });
    // A new assignment may bring partitions another member advanced: forget every position, but
    // seek to the last known ones before the first fetch (emitted before kafkajs fetches), so that
    // fetch does not read from the log's start only to be dropped.
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      partitions.clear();
      failures = 0;
      const assignment = event.payload.memberAssignment as Record<string, number[]>;
      let seeks = 0;
      for (const [topic, assigned] of Object.entries(assignment)) {
        for (const partition of assigned) {
          const next = known.get(keyOf(topic, partition));
          if (next === undefined) continue;
          consumer.seek({ topic, partition, offset: next.toString() });
          seeks += 1;
        }
      }
      logger?.info({ groupId, assignment, seeks }, "projection consumer joined its group");
      options.progress?.assigned(
        Object.entries(assignment).flatMap(([topic, assigned]) =>
          assigned.map((partition) => ({ topic, partition, next: known.get(keyOf(topic, partition)) })),
        ),
      );
    });
    // A fetch of commit markers (or aborted records) only never reaches the batch handler: kafkajs
    // steps over it, and the position moves past it, so a caught-up partition reads as 0 behind.
    if (options.progress !== undefined) {
      const progress = options.progress;
      consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
        if (payload.batchSize === 0 && payload.lastOffset !== undefined)
          progress.position(payload.topic, payload.partition, BigInt(payload.lastOffset) + 1n);
      });
    }
    consumer.on(consumer.events.CRASH, (event) => {
      partitions.clear();
      const { error, restart } = event.payload;
      if (stopping) return;
      if (restart) {
        logger?.warn({ groupId, err: error }, "projection consumer crashed; kafkajs restarts it");
      } else {
        logger?.warn({ groupId, err: error }, "projection consumer crashed; replacing it");
        scheduleRestart(error);
      }
    });
    try {
      await consumer.connect();
      await loadKnownOffsets(kafka, options, known);
      await consumer.subscribe({ topics: options.topics, fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: batchHandler(options, positions, consumer),
      });
      return consumer;
    } catch (error) {
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
  };

  const scheduleRestart = (error: unknown): void => {
    if (stopping || restartTimer !== undefined) return;
    const delay = retryDelay(error, failures, { firstMs: 1_000, maxMs: 30_000 });
    if (delay === undefined) {
      logger?.error({ groupId, err: error }, "projection consumer stopped by an error that trying again cannot mend");
      return;
    }
    failures += 1;
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      restarting = (async () => {
        await current?.disconnect().catch(() => undefined);
        current = undefined;
        if (stopping) return;
        try {
          current = await start();
        } catch (error) {
          const level = failures >= 5 ? "error" : "warn";
          logger?.[level]({ groupId, err: error, failures }, "projection consumer could not restart; retrying");
          scheduleRestart(error);
        }
      })().finally(() => {
        restarting = undefined;
      });
    }, delay);
    restartTimer.unref();
  };

  try {
    current = await start();
  } catch (error) {
    throw new Error(`could not start the projection consumer ${groupId}`, { cause: error });
  }

  return {
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      restartTimer = undefined;
      await restarting;
      await current?.disconnect();
      current = undefined;
    },
  };
}

/**
 * The stored offsets of every partition of the topics, for the seeks on joining. Best effort: a
 * partition left out is read from the log's start and aligned on its first batch, as before.
 */
async function loadKnownOffsets(
  kafka: Kafka,
  options: ProjectionConsumerOptions,
  known: Map<string, bigint>,
): Promise<void> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    const { topics } = await admin.fetchTopicMetadata({ topics: options.topics });
    const wanted = topics.flatMap(({ name, partitions: entries }) =>
      entries.map(({ partitionId }) => ({ topic: name, partition: partitionId })),
    );
    const stored = await Promise.all(wanted.map(({ topic, partition }) => options.loadOffsets(topic, partition)));
    wanted.forEach(({ topic, partition }, index) => {
      const offset = stored[index];
      if (offset !== undefined) known.set(keyOf(topic, partition), BigInt(offset) + 1n);
    });
  } catch (error) {
    options.logger?.debug(
      { groupId: options.groupId, err: error },
      "could not read the stored offsets before joining; aligning on the first batches",
    );
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Applies each batch at most once beyond the stored position, and records the new position. */
function batchHandler(
  options: ProjectionConsumerOptions,
  positions: PartitionPositions,
  consumer: Consumer,
): (payload: EachBatchPayload) => Promise<void> {
  const { groupId, logger } = options;
  const { partitions, known } = positions;
  return async (payload: EachBatchPayload): Promise<void> => {
    const { batch, resolveOffset, heartbeat } = payload;
    const { topic, partition } = batch;
    if (!payload.isRunning() || payload.isStale()) return;
    const state = await positionOf(options, positions, topic, partition);

    // First batch of this assignment: kafkajs started wherever it chose (earliest, as nothing
    // is committed); move to the stored position. Once only: a log whose start moved past the
    // stored position (retention) would otherwise seek forever.
    if (!state.aligned) {
      state.aligned = true;
      const fetched = fetchedOffsetOf(batch);
      if (fetched !== null && BigInt(fetched) !== state.next) {
        logger?.debug(
          { groupId, topic, partition, fetched, stored: state.previous ?? null },
          "first batch fetched from elsewhere than the stored position; seeking",
        );
        consumer.seek({ topic, partition, offset: state.next.toString() });
        return;
      }
    }

    const fresh = batch.messages.filter((message) => BigInt(message.offset) >= state.next);
    const last = batch.messages.at(-1);
    if (last === undefined) return;
    if (fresh.length > 0) {
      const lastOffset = fresh.at(-1)?.offset ?? last.offset;
      options.progress?.applying(topic, partition, Number(fresh[0]!.timestamp));
      const messages = fresh.map((message) => fromKafkaMessage(topic, partition, message));
      try {
        await inConsumeSpan(groupId, topic, partition, messages, () =>
          options.handleBatch({
            topic,
            partition,
            messages,
            lastOffset,
            previousOffset: state.previous,
            heartbeat,
          }),
        );
      } catch (error) {
        // Whether the projection stored anything is unknown: reload its offset before the retry.
        partitions.delete(keyOf(topic, partition));
        options.progress?.failed(topic, partition);
        throw error;
      }
      state.previous = lastOffset;
      state.next = BigInt(lastOffset) + 1n;
      known.set(keyOf(topic, partition), state.next);
      options.progress?.applied(topic, partition, fresh.length, Number(fresh.at(-1)!.timestamp), state.next);
    }
    // Past a trailing commit marker too: the next record to apply comes after everything this batch held.
    options.progress?.position(topic, partition, BigInt(batch.lastOffset()) + 1n);
    // Resolving the last record lets kafkajs step over a trailing transaction marker too.
    resolveOffset(last.offset);
    await heartbeat();
  };
}

async function positionOf(
  options: ProjectionConsumerOptions,
  positions: PartitionPositions,
  topic: string,
  partition: number,
): Promise<PartitionState> {
  const key = keyOf(topic, partition);
  let state = positions.partitions.get(key);
  if (state === undefined) {
    let stored: string | undefined;
    try {
      stored = await options.loadOffsets(topic, partition);
    } catch (error) {
      throw new Error(`could not load the stored offset of ${topic}/${partition} for ${options.groupId}`, {
        cause: error,
      });
    }
    state = { next: stored === undefined ? 0n : BigInt(stored) + 1n, previous: stored, aligned: false };
    positions.partitions.set(key, state);
    options.progress?.position(topic, partition, state.next);
    if (stored !== undefined) positions.known.set(key, state.next);
  }
  return state;
}

function keyOf(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/** kafkajs' Batch knows the offset it fetched from (missing from its typings); firstOffset() otherwise. */
function fetchedOffsetOf(batch: Batch): string | null {
  const fetched = (batch as Batch & { fetchedOffset?: unknown }).fetchedOffset;
  return typeof fetched === "string" ? fetched : batch.firstOffset();
}
