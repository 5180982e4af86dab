/** The Kafka topics of the platform (ARCHITECTURE.md, "Kafka topics"). */
export const topicNames = {
  chainIntents: "chain.intents.v1",
  chainNetwork: "chain.network.v1",
  oraclePrices: "oracle.prices.v1",
  intentsNotifications: "intents.notifications.v1",
  tcAcceptances: "tc.acceptances.v1",
  authApiKeys: "auth.api-keys.v1",
  authRefreshTokens: "auth.refresh-tokens.v1",
  ingestorCheckpoints: "ingestor.checkpoints.v1",
} as const;

export type TopicName = (typeof topicNames)[keyof typeof topicNames];

/** What the migration makes of a topic: its partition count, replication and topic-level configs. */
export interface TopicSpec {
  name: string;
  partitions: number;
  replicationFactor: number;
  /** Topic-level configs (`cleanup.policy`, `retention.ms`, …), values as Kafka spells them. */
  configs: Record<string, string>;
}

export interface TopicCatalogOptions {
  /** 1 on a single-node broker (tests, local stack), typically 3 in production. */
  replicationFactor: number;
  /** Defaults to `replicationFactor - 1` (at least 1): one broker may be down without stopping writes. */
  minInsyncReplicas?: number;
  /** Partition counts per topic, overriding the defaults below. */
  partitions?: Partial<Record<TopicName, number>>;
}

/** Default partition counts: room for consumer parallelism on the busy topics, one for the checkpoints. */
export const defaultPartitions: Readonly<Record<TopicName, number>> = {
  "chain.intents.v1": 6,
  "chain.network.v1": 6,
  "oracle.prices.v1": 3,
  "intents.notifications.v1": 6,
  "tc.acceptances.v1": 3,
  "auth.api-keys.v1": 3,
  "auth.refresh-tokens.v1": 3,
  "ingestor.checkpoints.v1": 1,
};

/**
 * How long `auth.refresh-tokens.v1` keeps an issued refresh token: longer than any token lives
 * (auth refuses to start with a REFRESH_TOKEN_TTL_SECONDS above it), so a rebuild still finds
 * every live token, and no longer, so the events of a key that signs in often do not pile up.
 */
export const REFRESH_TOKEN_RETENTION_MS = 31 * 24 * 3_600_000;

/**
 * The catalog of topic specs. Fact topics keep every event forever (`retention.ms=-1`,
 * `retention.bytes=-1`) so projections can be rebuilt from offset zero; issued refresh tokens
 * only while one can still be live (REFRESH_TOKEN_RETENTION_MS); the ingestor's checkpoints are
 * compacted, keeping the latest checkpoint per source id.
 */
export function topicCatalog(options: TopicCatalogOptions): TopicSpec[] {
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
  const fact = { ...common, "cleanup.policy": "delete", "retention.ms": "-1", "retention.bytes": "-1" };
  const compacted = { ...common, "cleanup.policy": "compact" };

  const spec = (name: TopicName, configs: Record<string, string>): TopicSpec => {
    const partitions = options.partitions?.[name] ?? defaultPartitions[name];
    if (!Number.isInteger(partitions) || partitions < 1) {
      throw new RangeError(`partitions for ${name} must be a positive integer, got ${partitions}`);
    }
    return { name, partitions, replicationFactor, configs };
  };

  return [
    spec("chain.intents.v1", fact),
    spec("chain.network.v1", fact),
    spec("oracle.prices.v1", fact),
    spec("intents.notifications.v1", fact),
    spec("tc.acceptances.v1", fact),
    spec("auth.api-keys.v1", fact),
    spec("auth.refresh-tokens.v1", {
      ...common,
      "cleanup.policy": "delete",
      "retention.ms": String(REFRESH_TOKEN_RETENTION_MS),
      "retention.bytes": "-1",
    }),
    spec("ingestor.checkpoints.v1", compacted),
  ];
}
