import {
  type Kafka,
  type ProjectionSupervisor,
  type SupervisedProjection,
  superviseProjection as superviseTopics,
} from "@platform/bus";
import type { HistoryDb } from "@platform/history";
import type { Logger } from "@platform/log";
import type { Signals } from "@platform/signals";
import { type Redis, type ReplicaWait, redisProjectionMarker } from "@platform/store";
import type { Registry } from "prom-client";
import { readModelMetrics } from "./readModelMetrics.js";

export type { ProjectionSupervisor, SupervisedProjection } from "@platform/bus";

/**
 * The options every `start<Name>Projection(opts)` of the projector takes (accounts, market,
 * subnets), so main.ts wires them alike.
 */
export interface ProjectionStartOptions {
  kafka: Kafka;
  /** For the marker check (shared connection). */
  redis: Redis;
  /** A connection of the projection's own, so its reads and commits never queue behind the marker checks. */
  projectionRedis: Redis;
  /** The history database (PostgreSQL), for the projections that keep history there (accounts). */
  history?: HistoryDb | undefined;
  signals?: Signals;
  /** Replicas each commit waits for before its change signal (REDIS_WAIT_REPLICAS; shared/commitReplication.ts). */
  replicaWait?: ReplicaWait;
  log: Logger;
  /** Replication of the topics if this process is the first to create them. */
  replicationFactor: number;
  /** `retention.ms` of the chain topics if this process is the first to create them (CHAIN_TOPICS_RETENTION_MS). */
  chainTopicsRetentionMs?: number | undefined;
  /** Whether it creates missing topics or waits for the topics step (KAFKA_CREATE_TOPICS); true by default. */
  createTopics?: boolean;
  /** How often the marker is checked; 2 s by default. */
  intervalMs?: number;
  /** Where the projection's lag and read-model metrics go (the process's registry); none without it. */
  registry?: Registry;
  /** The newest blocks' points Redis keeps of the per-block series (REDIS_HOT_WINDOW_BLOCKS). */
  hotWindowBlocks?: number;
}

export interface ProjectionSupervisorOptions {
  /** Short name: the readiness check is `projection:<name>`, and it names the projection in logs. */
  name: string;
  kafka: Kafka;
  redis: Redis;
  log: Logger;
  groupId: string;
  topics: readonly string[];
  /** The Redis key of the read model's marker (absent: Redis lost the read model). */
  markerKey: string;
  projection: SupervisedProjection;
  replicationFactor: number;
  chainTopicsRetentionMs?: number | undefined;
  createTopics?: boolean;
  intervalMs?: number;
  /** Lag metrics (libs/bus projectionMetrics) labelled with `name`, and the read model forgotten on a rebuild. */
  registry?: Registry;
}

/**
 * A projector read model under the shared supervisor of @platform/bus (topics created, consumer
 * kept running, replayed from offset 0 when Redis loses the marker), its marker in Redis. The
 * projector is ready once the consumer runs: nobody reads through it, and data-query's own
 * readiness covers the reads. With `createTopics: false` (KAFKA_CREATE_TOPICS=false: the local
 * stack, Kubernetes) it waits for its topics, which the platform's topics step creates; otherwise
 * (a bare broker) it creates them when it starts before their producers, but never alters an
 * existing topic's configs, and a difference is only logged.
 */
export function superviseProjection(options: ProjectionSupervisorOptions): ProjectionSupervisor {
  return superviseTopics({
    name: options.name,
    kafka: options.kafka,
    log: options.log,
    groupId: options.groupId,
    topics: options.topics,
    marker: redisProjectionMarker(options.redis, options.markerKey),
    projection: options.projection,
    replicationFactor: options.replicationFactor,
    ...(options.chainTopicsRetentionMs === undefined ? {} : { chainTopicsRetentionMs: options.chainTopicsRetentionMs }),
    alterTopicConfigs: false,
    ...(options.createTopics === undefined ? {} : { createTopics: options.createTopics }),
    readyWhenComplete: false,
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
    ...(options.registry === undefined
      ? {}
      : {
          metrics: { registry: options.registry },
          // The read model is gone: its as_of is unknown until the replay commits again.
          onRebuild: () => readModelMetrics(options.registry!).forget(options.name),
        }),
  });
}
