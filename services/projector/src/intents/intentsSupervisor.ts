import type { Kafka } from "@platform/bus";
import type { Logger } from "@platform/log";
import { replicationFor } from "@platform/projection";
import { TOPICS } from "@platform/proto/topics";
import { intentsKeys } from "@platform/read-models";
import type { Signals } from "@platform/signals";
import type { Redis, ReplicaWait } from "@platform/store";
import type { Registry } from "prom-client";
import { type ProjectionSupervisor, superviseProjection } from "../supervisor/projectionSupervisor.js";
import { readModelMetrics } from "../supervisor/readModelMetrics.js";
import { intentsProjection } from "./projection.js";

export const INTENTS_GROUP_ID = "projector-intents";

export const INTENTS_TOPICS = [TOPICS.chainIntents.name, TOPICS.intentsNotifications.name] as const;

export interface IntentsSupervisorOptions {
  kafka: Kafka;
  /** For the marker check. */
  redis: Redis;
  /** A connection of the projection's own, so its reads and commits never queue behind the marker checks. */
  projectionRedis: Redis;
  signals?: Signals;
  /** Replicas each commit waits for before its change signal (REDIS_WAIT_REPLICAS; shared/commitReplication.ts). */
  replicaWait?: ReplicaWait;
  log: Logger;
  refundGraceSeconds: number;
  /** Replication of the two topics if this process is the first to create them. */
  replicationFactor: number;
  /**
   * CHAIN_TOPICS_RETENTION_MS, for the day its topics become chain topics; today both are kept for
   * ever (the intents orders have no durable copy but these records), so it changes nothing.
   */
  chainTopicsRetentionMs?: number | undefined;
  /** Whether it creates missing topics or waits for the topics step (KAFKA_CREATE_TOPICS); true by default. */
  createTopics?: boolean;
  /** How often the marker is checked; 2 s by default. */
  intervalMs?: number;
  /** Where the projection's lag and read-model metrics go (the process's registry); none without it. */
  registry?: Registry;
}

export type IntentsSupervisor = ProjectionSupervisor;

/**
 * Keeps the intents read model a live projection of chain.intents.v1 and intents.notifications.v1
 * under the shared supervisor (marker `rm:{intents}:projection`; its loss replays both topics).
 */
export function superviseIntentsProjection(options: IntentsSupervisorOptions): IntentsSupervisor {
  return superviseProjection({
    name: "intents",
    kafka: options.kafka,
    redis: options.redis,
    log: options.log,
    groupId: INTENTS_GROUP_ID,
    topics: INTENTS_TOPICS,
    markerKey: intentsKeys.marker,
    projection: intentsProjection({
      redis: options.projectionRedis,
      log: options.log,
      refundGraceSeconds: options.refundGraceSeconds,
      ...(options.signals === undefined ? {} : { signals: options.signals }),
      replication: replicationFor("intents", options),
      ...(options.registry === undefined ? {} : { readModels: readModelMetrics(options.registry) }),
    }),
    replicationFactor: options.replicationFactor,
    chainTopicsRetentionMs: options.chainTopicsRetentionMs,
    ...(options.createTopics === undefined ? {} : { createTopics: options.createTopics }),
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
    ...(options.registry === undefined ? {} : { registry: options.registry }),
  });
}
