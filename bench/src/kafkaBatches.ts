import { createRequire } from "node:module";
import type { ConsumedRecord } from "@platform/bus";
import { TOPICS } from "@platform/proto/topics";

/* How the benches that feed projections without Kafka cut records as the consumer would see them. */

/** kafkajs' DefaultPartitioner (murmur2 of the key, as the publishers' producer), from @platform/bus's kafkajs. */
export function kafkaPartitioner(partitions: number): (key: string) => number {
  const require = createRequire(new URL("../../libs/bus/package.json", import.meta.url));
  const kafkajs = require("kafkajs") as {
    Partitioners: {
      DefaultPartitioner(): (args: {
        topic: string;
        partitionMetadata: unknown[];
        message: { key: string; value: null };
      }) => number;
    };
  };
  const partitioner = kafkajs.Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    replicas: [0],
    isr: [0],
    partitionErrorCode: 0,
    offlineReplicas: [],
  }));
  const known = new Map<string, number>();
  return (key) => {
    let partition = known.get(key);
    if (partition === undefined) {
      partition = partitioner({ topic: TOPICS.chainNetwork.name, partitionMetadata, message: { key, value: null } });
      if (known.size < 1_000_000) known.set(key, partition);
    }
    return partition;
  };
}

/** Consecutive batches of at most `maxBytes` (at least one record each). */
export function* sized(messages: readonly ConsumedRecord[], maxBytes: number): Generator<ConsumedRecord[]> {
  let batch: ConsumedRecord[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = (message.value?.byteLength ?? 0) + (message.key?.length ?? 0);
    if (batch.length > 0 && bytes + size > maxBytes) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(message);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}
