import { givesUp, TransientError } from "@platform/errors/base";
import kafkajs, { type Kafka, type Producer, type RecordMetadata, type RetryOptions } from "kafkajs";
import type { OutgoingRecord } from "./envelope.js";
import { groupByPartition, partitionCounts, sendByPartition } from "./partitionSends.js";

/** Where a published record landed: the first offset written to each partition. */
export interface PublishedBatch {
  topic: string;
  partition: number;
  baseOffset: string;
}

export interface Publisher {
  /** Publishes the records (acks from all in-sync replicas); resolves once they are written. */
  publish(records: readonly OutgoingRecord[]): Promise<PublishedBatch[]>;
  disconnect(): Promise<void>;
}

export interface PublisherOptions {
  /** Overrides the client's retries for sends. */
  retry?: RetryOptions;
}

/**
 * An idempotent producer: the broker drops duplicates that the producer's own retries would
 * otherwise write. Its retries are bounded (the client's, unlike kafkajs' default of retrying an
 * idempotent send forever), so a down broker surfaces as an error to the caller; a caller that
 * publishes again after such an error may write a record twice, which consumers absorb by
 * being idempotent (the `event-id` header identifies the duplicate).
 */
export async function createPublisher(kafka: Kafka, options: PublisherOptions = {}): Promise<Publisher> {
  const producer: Producer = kafka.producer({
    idempotent: true,
    // kafkajs keeps sequence numbers consistent only with one request in flight.
    maxInFlightRequests: 1,
    createPartitioner: kafkajs.Partitioners.DefaultPartitioner,
    ...(options.retry ? { retry: options.retry } : {}),
  });
  try {
    await producer.connect();
  } catch (error) {
    // A driver's failure is Kafka away for now; an error that already says it cannot pass stays as it is.
    if (givesUp(error)) throw error;
    throw new TransientError("could not connect the Kafka publisher", { code: "KAFKA_UNAVAILABLE", cause: error });
  }
  const counts = partitionCounts(kafka);
  return {
    async publish(records) {
      if (records.length === 0) return [];
      try {
        // One partition per produce call: partitionSends.ts says why (a leader lost mid-send).
        const groups = await groupByPartition(records, counts);
        const sent = await sendByPartition(groups, (topicMessages) => producer.sendBatch({ acks: -1, topicMessages }));
        return sent.flat().map(toPublishedBatch);
      } catch (error) {
        counts.forget();
        const topics = [...new Set(records.map((record) => record.topic))].join(", ");
        throw new TransientError(`could not publish ${records.length} record(s) to ${topics}`, {
          code: "KAFKA_UNAVAILABLE",
          cause: error,
        });
      }
    },
    async disconnect() {
      await producer.disconnect();
      await counts.close();
    },
  };
}

function toPublishedBatch(metadata: RecordMetadata): PublishedBatch {
  return { topic: metadata.topicName, partition: metadata.partition, baseOffset: metadata.baseOffset ?? "-1" };
}
