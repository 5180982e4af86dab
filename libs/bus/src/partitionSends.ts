import kafkajs, { type Admin, type Kafka, type Message, type PartitionMetadata, type TopicMessages } from "kafkajs";
import { type OutgoingRecord, toKafkaMessage } from "./envelope.js";
import { sizedChunks } from "./sizedChunks.js";

/**
 * Sends records one partition per produce call, the partition chosen here as kafkajs' default
 * partitioner would (murmur2 of the key over the topic's partitions).
 *
 * Why not one sendBatch over every partition: kafkajs 2.2.4 (producer/sendMessages.js) remembers,
 * across the retries of one sendBatch, which brokers already answered, and on a retry sends only to
 * brokers without an answer. When a partition's leader dies mid-request and its new leader is a
 * broker that already answered for its own partitions, the dead leader's records are never sent
 * again, and the call still resolves: the transaction then commits without them. The failover e2e
 * test (test/e2e/src/failover.test.ts) lost one block's records of one partition that way, twice
 * in four runs. With one partition per call, every retry targets the partition's current leader.
 */
export interface PartitionedGroup {
  topic: string;
  partition: number;
  records: OutgoingRecord[];
}

/** Partition counts by topic, read from the cluster once and kept (a topic's partitions only grow, by an operator). */
export interface PartitionCounts {
  partitionsOf(topic: string): Promise<number>;
  /** Forgets what was read (after a failed send: the topic may have changed). */
  forget(): void;
  close(): Promise<void>;
}

export function partitionCounts(kafka: Kafka): PartitionCounts {
  const known = new Map<string, Promise<number>>();
  let admin: Promise<Admin> | undefined;
  const connected = () => {
    admin ??= (async () => {
      const client = kafka.admin();
      await client.connect();
      return client;
    })().catch((error: unknown) => {
      admin = undefined;
      throw error;
    });
    return admin;
  };
  return {
    partitionsOf(topic) {
      let count = known.get(topic);
      if (count === undefined) {
        count = connected()
          .then((client) => client.fetchTopicMetadata({ topics: [topic] }))
          .then((metadata) => {
            const partitions = metadata.topics[0]?.partitions.length ?? 0;
            if (partitions < 1) throw new Error(`topic ${topic} has no partitions`);
            return partitions;
          });
        count.catch(() => known.delete(topic));
        known.set(topic, count);
      }
      return count;
    },
    forget: () => known.clear(),
    async close() {
      const client = await admin?.catch(() => undefined);
      admin = undefined;
      await client?.disconnect().catch(() => undefined);
    },
  };
}

/** The records by topic and partition, each group in the caller's order. */
export async function groupByPartition(
  records: readonly OutgoingRecord[],
  counts: Pick<PartitionCounts, "partitionsOf">,
): Promise<PartitionedGroup[]> {
  const partitioner = kafkajs.Partitioners.DefaultPartitioner();
  // The partitioner reads only how many partitions there are (and, for records without a key, which have a leader).
  const metadataOf = new Map<string, PartitionMetadata[]>();
  const groups = new Map<string, PartitionedGroup>();
  for (const record of records) {
    let partitionMetadata = metadataOf.get(record.topic);
    if (partitionMetadata === undefined) {
      const partitions = await counts.partitionsOf(record.topic);
      partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({
        partitionId,
        leader: 0,
        replicas: [],
        isr: [],
        offlineReplicas: [],
        partitionErrorCode: 0,
      }));
      metadataOf.set(record.topic, partitionMetadata);
    }
    const partition = partitioner({
      topic: record.topic,
      partitionMetadata,
      message: { key: record.key, value: Buffer.from(record.value) },
    });
    const id = `${record.topic}\u0000${partition}`;
    let group = groups.get(id);
    if (group === undefined) {
      group = { topic: record.topic, partition, records: [] };
      groups.set(id, group);
    }
    group.records.push(record);
  }
  return [...groups.values()];
}

/**
 * Sends every group through `send` (one partition per call, each call within the broker's size
 * limit), groups side by side and each group's chunks in order; resolves with every call's result.
 */
export async function sendByPartition<T>(
  groups: readonly PartitionedGroup[],
  send: (topicMessages: TopicMessages[]) => Promise<T>,
): Promise<T[]> {
  const results = await Promise.all(
    groups.map(async (group) => {
      const sent: T[] = [];
      for (const chunk of sizedChunks(group.records)) {
        const messages: Message[] = chunk.map((record) => ({ ...toKafkaMessage(record), partition: group.partition }));
        sent.push(await send([{ topic: group.topic, messages }]));
      }
      return sent;
    }),
  );
  return results.flat();
}
