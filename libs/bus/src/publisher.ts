import { givesUp, TransientError } from "@platform/errors/base";
import kafkajs, {
  type Kafka,
  type Producer,
  type RecordMetadata,
  type RetryOptions,
  type TopicMessages,
} from "kafkajs";
import { type OutgoingRecord, toKafkaMessage } from "./envelope.js";

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
  return {
    async publish(records) {
      if (records.length === 0) return [];
      const topicMessages = groupByTopic(records);
      try {
        const metadata = await producer.sendBatch({ acks: -1, topicMessages });
        return metadata.map(toPublishedBatch);
      } catch (error) {
        const topics = topicMessages.map((entry) => entry.topic).join(", ");
        throw new TransientError(`could not publish ${records.length} record(s) to ${topics}`, {
          code: "KAFKA_UNAVAILABLE",
          cause: error,
        });
      }
    },
    disconnect: () => producer.disconnect(),
  };
}

/** kafkajs messages grouped by topic, each topic's records in the caller's order. */
export function groupByTopic(records: readonly OutgoingRecord[]): TopicMessages[] {
  const byTopic = new Map<string, TopicMessages>();
  for (const record of records) {
    let entry = byTopic.get(record.topic);
    if (entry === undefined) {
      entry = { topic: record.topic, messages: [] };
      byTopic.set(record.topic, entry);
    }
    entry.messages.push(toKafkaMessage(record));
  }
  return [...byTopic.values()];
}

function toPublishedBatch(metadata: RecordMetadata): PublishedBatch {
  return { topic: metadata.topicName, partition: metadata.partition, baseOffset: metadata.baseOffset ?? "-1" };
}
