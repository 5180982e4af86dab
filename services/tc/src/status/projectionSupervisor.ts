import {
  type Kafka,
  type ProjectionSupervisor,
  type ProjectionSupervisorOptions,
  superviseProjection,
} from "@platform/bus";
import type { Logger } from "@platform/log";
import { TOPICS } from "@platform/proto/topics";
import { type Redis, redisProjectionMarker } from "@platform/store";
import { tcKeys } from "../keys.js";
import { acceptanceProjection } from "./projection.js";

export const PROJECTION_GROUP_ID = "tc-acceptances";

export interface AcceptanceSupervisorOptions {
  kafka: Kafka;
  /** For the marker and offset checks. */
  redis: Redis;
  /** A connection of the projection's own (its WATCH must not share a connection). */
  projectionRedis: Redis;
  log: Logger;
  /** Replication of tc.acceptances.v1 when the migration creates it. */
  replicationFactor: number;
  /** Whether it creates its topic or waits for the topics step (KAFKA_CREATE_TOPICS); true by default. */
  createTopics?: boolean;
  /** How often the marker is checked once the projection is complete; 2 s by default. */
  intervalMs?: number;
  /** Where its lag metrics go (`projection="tc-acceptances"`); none without it. */
  metrics?: ProjectionSupervisorOptions["metrics"];
}

/**
 * Keeps `tc:{tc}:wallet:*` a live projection of `tc.acceptances.v1` (superviseProjection in
 * @platform/bus), with the marker `tc:{tc}:projection` (keys.ts). Reads trust "never accepted" only
 * while the marker is `complete`, so neither the status nor the gate answers wrongly during a
 * rebuild; readiness waits for it too.
 */
export function superviseAcceptanceProjection(options: AcceptanceSupervisorOptions): ProjectionSupervisor {
  const projection = acceptanceProjection(options.projectionRedis, options.log);
  return superviseProjection({
    name: "acceptance",
    checkName: "projection",
    kafka: options.kafka,
    log: options.log,
    groupId: PROJECTION_GROUP_ID,
    topics: [TOPICS.tcAcceptances.name],
    marker: redisProjectionMarker(options.redis, tcKeys.marker),
    projection,
    replicationFactor: options.replicationFactor,
    ...(options.createTopics === undefined ? {} : { createTopics: options.createTopics }),
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
    ...(options.metrics === undefined ? {} : { metrics: { projection: PROJECTION_GROUP_ID, ...options.metrics } }),
  });
}
