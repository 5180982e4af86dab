import kafkajs from "kafkajs";

/**
 * One key per partition of a topic with `partitions` partitions: element p is the first of
 * `<prefix>0`, `<prefix>1`, ... that the publishers' partitioner (kafkajs' DefaultPartitioner, the
 * Java client's murmur2) sends to partition p. A record meant for every partition goes out once
 * under each key, and its removal, keyed like the record, follows it into the same partition.
 */
export function keysForEveryPartition(prefix: string, partitions: number): string[] {
  if (!Number.isInteger(partitions) || partitions < 1)
    throw new RangeError(`partitions must be a positive integer, got ${partitions}`);
  const partitionOf = kafkajs.Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    replicas: [0],
    isr: [0],
    partitionErrorCode: 0,
    offlineReplicas: [],
  }));
  const keys: (string | undefined)[] = Array.from({ length: partitions }, () => undefined);
  let missing = partitions;
  for (let n = 0; missing > 0; n++) {
    const key = `${prefix}${n}`;
    const partition = partitionOf({ topic: "keys", partitionMetadata, message: { key, value: null } });
    if (keys[partition] === undefined) {
      keys[partition] = key;
      missing--;
    }
  }
  return keys as string[];
}
