import type { Logger } from "@platform/log";
import { activeSpan, inSpan, isTracingEnabled, SpanKind } from "@platform/telemetry";
import kafkajs, { type Kafka, type Producer, type RetryOptions, type Transaction } from "kafkajs";
import type { OutgoingRecord } from "./envelope.js";
import { isProducerFencedError, ProducerFencedError } from "./errors.js";
import { groupByPartition, partitionCounts, sendByPartition } from "./partitionSends.js";

/** Consumed offsets committed with the transaction (consume-transform-produce). */
export interface TransactionOffsets {
  consumerGroupId: string;
  topics: { topic: string; partitions: { partition: number; offset: string }[] }[];
}

/** What the body of `runInTransaction` may do; everything it does commits or aborts together. */
export interface TransactionContext {
  /** Adds records to the transaction. The commit waits for every send, awaited or not. */
  send(records: readonly OutgoingRecord[]): Promise<void>;
  sendOffsets(offsets: TransactionOffsets): Promise<void>;
}

export interface TransactionalPublisher {
  readonly transactionalId: string;
  /**
   * Runs `body` in a Kafka transaction: commits when it resolves, aborts when it throws (the
   * error is rethrown). Calls are queued, one transaction at a time. Throws
   * `ProducerFencedError` once another publisher took over the transactional id.
   */
  runInTransaction<T>(body: (tx: TransactionContext) => Promise<T>): Promise<T>;
  disconnect(): Promise<void>;
}

export interface TransactionalPublisherOptions {
  /** One per source of facts (e.g. per chain the ingestor follows); stable across restarts. */
  transactionalId: string;
  logger?: Logger;
  /** How long the broker lets a transaction stay open before aborting it; 60 s by default. */
  transactionTimeoutMs?: number;
  retry?: RetryOptions;
}

/**
 * A transactional producer. Creating it registers the transactional id with the broker at once,
 * which aborts whatever a previous holder of the id left open and fences that holder off: its
 * next send or commit fails with `ProducerFencedError`. After any failed transaction (a send that
 * failed, a body that threw, the broker gone mid-commit), the next one starts on a fresh producer,
 * whose registration settles the unfinished one on the broker and bumps the producer epoch; the
 * caller retries the work, which is safe because an unfinished transaction is never visible to
 * read_committed consumers.
 *
 * Why a fresh producer even after a clean abort: kafkajs keeps the producer's epoch and sequence
 * numbers across transactions. A send of the aborted transaction that a failing leader still
 * holds could then land in the next transaction (a "zombie" write, KIP-890), and the next send's
 * sequence, reused from the failed one, could be taken by the broker for a duplicate of the
 * aborted batch and dropped. The Java client bumps the epoch after such an abort (KIP-360), which
 * kafkajs 2.2.4 cannot ask for; a new registration does the same: writes of the old epoch are
 * fenced and sequences start again. CI saw one partition's share of a transaction committed twice
 * while its leader died (kafkaCluster.int.test.ts) with the producer kept.
 *
 * A race it cannot tell apart: when another instance registers the id while this one's commit is
 * in flight, Kafka 4.1 may answer the commit UNKNOWN_SERVER_ERROR instead of a fencing error. This
 * publisher then takes it for a passing failure, and its fresh producer fences the newer instance,
 * which exits; restarted, that one fences this one for good. One writer at a time holds throughout
 * (the point of the id); only which one wins is left to the race. Telling the two apart would take
 * InitProducerId with the current epoch (KIP-360), which kafkajs 2.2.4 does not send.
 */
export async function createTransactionalPublisher(
  kafka: Kafka,
  options: TransactionalPublisherOptions,
): Promise<TransactionalPublisher> {
  const { transactionalId, logger } = options;
  let producer: Producer | undefined = await openProducer(kafka, options);
  const counts = partitionCounts(kafka);
  let fenced: ProducerFencedError | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const fail = async (error: unknown): Promise<never> => {
    if (isProducerFencedError(error)) {
      fenced ??= new ProducerFencedError(transactionalId, { cause: error });
      logger?.warn({ transactionalId }, "kafka transactional publisher fenced off by a newer instance");
    }
    // kafkajs' transaction state is unknown after a failed commit or abort: start afresh next time.
    const broken = producer;
    producer = undefined;
    await broken?.disconnect().catch(() => undefined);
    throw fenced ?? error;
  };

  const run = async <T>(body: (tx: TransactionContext) => Promise<T>): Promise<T> => {
    if (fenced) throw fenced;
    producer ??= await openProducer(kafka, options);
    let transaction: Transaction;
    try {
      transaction = await producer.transaction();
    } catch (error) {
      return fail(new Error(`could not begin a transaction for ${transactionalId}`, { cause: error }));
    }

    const pending: Promise<unknown>[] = [];
    const track = <R>(operation: Promise<R>): Promise<R> => {
      operation.catch(() => undefined); // observed here, reported by the settle below
      pending.push(operation);
      return operation;
    };
    const context: TransactionContext = {
      // One partition per produce call (partitionSends.ts: kafkajs can drop a partition's records
      // when its leader fails mid-send), each call within the broker's size limit, in order.
      send: (records) =>
        track(
          groupByPartition(records, counts)
            .then((groups) =>
              sendByPartition(groups, (topicMessages) => transaction.sendBatch({ acks: -1, topicMessages })),
            )
            .then(
              () => undefined,
              (error: unknown) => {
                counts.forget();
                throw error;
              },
            ),
        ),
      sendOffsets: (offsets) => track(transaction.sendOffsets(offsets)),
    };

    let result: T;
    try {
      result = await body(context);
      // A send the body did not await must still land before the commit, or fail the transaction.
      await settle(pending);
    } catch (error) {
      await Promise.allSettled(pending);
      try {
        await transaction.abort();
      } catch (abortError) {
        return fail(
          new Error(`could not abort the transaction of ${transactionalId}`, {
            cause: new AggregateError([error, abortError], "the transaction failed, then its abort failed"),
          }),
        );
      }
      return fail(error);
    }
    try {
      await transaction.commit();
    } catch (error) {
      return fail(new Error(`could not commit the transaction of ${transactionalId}`, { cause: error }));
    }
    return result;
  };

  return {
    transactionalId,
    runInTransaction<T>(body: (tx: TransactionContext) => Promise<T>): Promise<T> {
      // Inside a trace (an ingested block's), the transaction is its producer span: the records
      // sent in it carry this span's traceparent.
      const traced = isTracingEnabled() && activeSpan() !== undefined;
      const next = queue.then(() =>
        traced
          ? inSpan(
              "kafka transaction",
              {
                kind: SpanKind.PRODUCER,
                attributes: { "messaging.system": "kafka", "kafka.transactional_id": transactionalId },
              },
              () => run(body),
            )
          : run(body),
      );
      queue = next.catch(() => undefined);
      return next;
    },
    async disconnect() {
      await queue;
      await producer?.disconnect();
      producer = undefined;
      await counts.close();
    },
  };
}

/** Waits for every operation; rejects with the first failure. */
async function settle(operations: Promise<unknown>[]): Promise<void> {
  const outcomes = await Promise.allSettled(operations);
  const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
  if (failure) throw failure.reason;
}

async function openProducer(kafka: Kafka, options: TransactionalPublisherOptions): Promise<Producer> {
  const producer = kafka.producer({
    transactionalId: options.transactionalId,
    idempotent: true,
    maxInFlightRequests: 1,
    transactionTimeout: options.transactionTimeoutMs ?? 60_000,
    createPartitioner: kafkajs.Partitioners.DefaultPartitioner,
    ...(options.retry ? { retry: options.retry } : {}),
  });
  try {
    await producer.connect();
    // kafkajs registers the transactional id lazily, at the first transaction; an empty one
    // (nothing sent, so no request to end it) registers it now, fencing any previous holder.
    const transaction = await producer.transaction();
    await transaction.abort();
    return producer;
  } catch (error) {
    await producer.disconnect().catch(() => undefined);
    throw new Error(`could not start the transactional publisher ${options.transactionalId}`, { cause: error });
  }
}
