import { DEFAULT_CHAIN_TOPICS_RETENTION_MS, TOPICS, type TopicName } from "@platform/proto/topics";

/** 7 days: the chain topics' `retention.ms` unless `chainTopicsRetentionMs` (CHAIN_TOPICS_RETENTION_MS) says otherwise. */
export { DEFAULT_CHAIN_TOPICS_RETENTION_MS };

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
  /**
   * `retention.ms` of the chain topics (the catalog's `chainRetention`: chain.network.v1,
   * oracle.prices.v1), a positive number of ms or -1 for ever: a service's CHAIN_TOPICS_RETENTION_MS.
   * 7 days (DEFAULT_CHAIN_TOPICS_RETENTION_MS) by default. Every other topic keeps the catalog's.
   */
  chainTopicsRetentionMs?: number;
}

/**
 * The Kafka spec of every topic of the catalog (@platform/proto's TOPICS): the chain topics keep
 * `chainTopicsRetentionMs` (7 days by default: their projections' history is in PostgreSQL), the
 * other fact topics every event (`retention.ms=-1`), issued refresh tokens only while one can still
 * be live (`retention.bytes=-1` on all), and the ingestor's checkpoints are compacted, keeping the
 * latest per source id.
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
  const chainRetentionMs = options.chainTopicsRetentionMs ?? DEFAULT_CHAIN_TOPICS_RETENTION_MS;
  if (!Number.isSafeInteger(chainRetentionMs) || (chainRetentionMs < 1 && chainRetentionMs !== -1)) {
    throw new RangeError(`chainTopicsRetentionMs must be a positive whole number of ms or -1, got ${chainRetentionMs}`);
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
    const retentionMs = topic.chainRetention ? chainRetentionMs : topic.retentionMs;
    const configs = topic.compacted
      ? { ...common, "cleanup.policy": "compact" }
      : { ...common, "cleanup.policy": "delete", "retention.ms": String(retentionMs), "retention.bytes": "-1" };
    return { name: topic.name, partitions, replicationFactor, configs };
  });
}
