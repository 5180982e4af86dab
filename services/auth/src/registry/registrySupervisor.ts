import {
  type Kafka,
  type ProjectionSupervisor,
  type ProjectionSupervisorOptions,
  superviseProjection,
} from "@platform/bus";
import type { Logger } from "@platform/log";
import { TOPICS } from "@platform/proto/topics";
import { type Redis, redisProjectionMarker } from "@platform/store";
import { authKeys } from "./keys.js";
import { registryProjection } from "./projection.js";

export const REGISTRY_GROUP_ID = "auth-registry";

export interface RegistrySupervisorOptions {
  kafka: Kafka;
  /** For the marker and offset checks. */
  redis: Redis;
  /** A connection of the projection's own (its WATCH must not share a connection). */
  projectionRedis: Redis;
  log: Logger;
  /** Replication of auth.api-keys.v1 when the migration creates it. */
  replicationFactor: number;
  /** Whether it creates its topics or waits for the topics step (KAFKA_CREATE_TOPICS); true by default. */
  createTopics?: boolean;
  /** The cap on live refresh tokens per key (refreshTokenWrite.ts), as the issuer keeps it. */
  refreshTokensPerKey: number;
  /** How often the marker is checked once the registry is complete; 2 s by default. */
  intervalMs?: number;
  /** Where its lag metrics go (`projection="auth-registry"`); none without it. */
  metrics?: ProjectionSupervisorOptions["metrics"];
}

/** Whether the Redis registry can be trusted to answer "no such key", and a way to ask for a check now. */
export type RegistryStatus = Pick<ProjectionSupervisor, "complete" | "poke">;

/**
 * Keeps the Redis registry a live projection of `auth.api-keys.v1` and `auth.refresh-tokens.v1` (superviseProjection in
 * @platform/bus), with the marker `auth:registry` (keys.ts). Until a rebuild has caught up a
 * missing key may just not be replayed yet, so IssueToken answers UNAVAILABLE rather than a 401
 * that would count towards a lockout; readiness waits for it too.
 */
export function superviseRegistry(options: RegistrySupervisorOptions): ProjectionSupervisor {
  return superviseProjection({
    name: "key registry",
    checkName: "registry",
    kafka: options.kafka,
    log: options.log,
    groupId: REGISTRY_GROUP_ID,
    // Keys (kept forever) and issued refresh tokens (kept while they can be live); one fold.
    topics: [TOPICS.authApiKeys.name, TOPICS.authRefreshTokens.name],
    marker: redisProjectionMarker(options.redis, authKeys.marker),
    projection: registryProjection(options.projectionRedis, options.log, {
      refreshTokensPerKey: options.refreshTokensPerKey,
    }),
    replicationFactor: options.replicationFactor,
    ...(options.createTopics === undefined ? {} : { createTopics: options.createTopics }),
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
    ...(options.metrics === undefined ? {} : { metrics: { projection: REGISTRY_GROUP_ID, ...options.metrics } }),
  });
}
