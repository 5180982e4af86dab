import { replicationFor } from "@platform/projection";
import { TOPICS } from "@platform/proto/topics";
import { subnetsKeys } from "@platform/read-models";
import {
  type ProjectionStartOptions,
  type ProjectionSupervisor,
  superviseProjection,
} from "../supervisor/projectionSupervisor.js";
import { readModelMetrics } from "../supervisor/readModelMetrics.js";
import { subnetsProjection } from "./projection.js";

export const SUBNETS_GROUP_ID = "projector-subnets";
export const SUBNETS_TOPICS = [TOPICS.chainNetwork.name] as const;

/** Runs the subnets projection (keys.ts) under the projection supervisor: rebuilt from Kafka when Redis loses it (PostgreSQL, when configured, keeps every point). */
export function startSubnetsProjection(options: ProjectionStartOptions): ProjectionSupervisor {
  return superviseProjection({
    name: "subnets",
    kafka: options.kafka,
    redis: options.redis,
    log: options.log,
    groupId: SUBNETS_GROUP_ID,
    topics: SUBNETS_TOPICS,
    markerKey: subnetsKeys.marker,
    projection: subnetsProjection({
      redis: options.projectionRedis,
      history: options.history,
      log: options.log,
      ...(options.signals === undefined ? {} : { signals: options.signals }),
      replication: replicationFor("subnets", options),
      ...(options.registry === undefined ? {} : { readModels: readModelMetrics(options.registry) }),
    }),
    replicationFactor: options.replicationFactor,
    chainTopicsRetentionMs: options.chainTopicsRetentionMs,
    ...(options.createTopics === undefined ? {} : { createTopics: options.createTopics }),
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
    ...(options.registry === undefined ? {} : { registry: options.registry }),
  });
}
