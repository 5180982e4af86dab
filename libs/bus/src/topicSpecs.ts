import { TOPICS, type TopicName } from "@platform/proto/topics";

/** What the migration makes of a topic: its partition count, replication and topic-level configs. */
export interface TopicSpec {
  name: string;
  partitions: number;
  replicationFactor: number;
  /** Topic-level configs (`cleanup.policy`, `retention.ms`, …), values as Kafka spells them. */
  configs: Record<string, string>;
}

export interface TopicSpecOptions {
  /** 1 on a single-node broker (tests, local stack), typically 3 in production. */
  replicationFactor: number;
  /** Defaults to `replicationFactor - 1` (at least 1): one broker may be down without stopping writes. */
  minInsyncReplicas?: number;
  /** Partition counts per topic, overriding the catalog's (TOPICS). */
  partitions?: Partial<Record<TopicName, number>>;
}

/**
 * The Kafka spec of every topic of the catalog (@platform/proto's TOPICS): fact topics keep every
 * event (`retention.ms=-1`, `retention.bytes=-1`), issued refresh tokens only while one can still
 * be live, and the ingestor's checkpoints are compacted, keeping the latest per source id.
 */
export function topicSpecs(options: TopicSpecOptions): TopicSpec[] {
  const { replicationFactor } = options;
  if (!Number.isInteger(replicationFactor) || replicationFactor < 1) {
    throw new RangeError(`replicationFactor must be a positive integer, got ${replicationFactor}`);
  }
  const minInsyncReplicas = options.minInsyncReplicas ?? Math.max(1, replicationFactor - 1);
  if (minInsyncReplicas > replicationFactor) {
    throw new RangeError(`minInsyncReplicas (${minInsyncReplicas}) exceeds replicationFactor (${replicationFactor})`);
  }
  const common = {
    "min.insync.replicas": String(minInsyncReplicas),
    "unclean.leader.election.enable": "false",
  };
  return Object.values(TOPICS).map((topic) => {
    const partitions = options.partitions?.[topic.name] ?? topic.partitions;
    if (!Number.isInteger(partitions) || partitions < 1) {
      throw new RangeError(`partitions for ${topic.name} must be a positive integer, got ${partitions}`);
    }
    const configs = topic.compacted
      ? { ...common, "cleanup.policy": "compact" }
      : { ...common, "cleanup.policy": "delete", "retention.ms": String(topic.retentionMs), "retention.bytes": "-1" };
    return { name: topic.name, partitions, replicationFactor, configs };
  });
}
