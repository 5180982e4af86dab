import { replicationFor } from "@platform/projection";
import { TOPICS } from "@platform/proto/topics";
import { marketKeys } from "@platform/read-models";
import {
  type ProjectionStartOptions,
  type ProjectionSupervisor,
  superviseProjection,
} from "../supervisor/projectionSupervisor.js";
import { readModelMetrics } from "../supervisor/readModelMetrics.js";
import { marketProjection } from "./projection.js";

export const MARKET_GROUP_ID = "projector-market";
export const MARKET_TOPICS = [TOPICS.chainNetwork.name, TOPICS.oraclePrices.name] as const;

/** Runs the market projection (keys.ts) under the projection supervisor: rebuilt from Kafka when Redis loses it (PostgreSQL, when configured, keeps every point). */
export function startMarketProjection(options: ProjectionStartOptions): ProjectionSupervisor {
  return superviseProjection({
    name: "market",
    kafka: options.kafka,
    redis: options.redis,
    log: options.log,
    groupId: MARKET_GROUP_ID,
    topics: MARKET_TOPICS,
    markerKey: marketKeys.marker,
    projection: marketProjection({
      redis: options.projectionRedis,
      history: options.history,
      log: options.log,
      ...(options.signals === undefined ? {} : { signals: options.signals }),
      replication: replicationFor("market", options),
      ...(options.registry === undefined ? {} : { readModels: readModelMetrics(options.registry) }),
      ...(options.hotWindowBlocks === undefined ? {} : { hotWindowBlocks: options.hotWindowBlocks }),
    }),
    replicationFactor: options.replicationFactor,
    chainTopicsRetentionMs: options.chainTopicsRetentionMs,
    ...(options.createTopics === undefined ? {} : { createTopics: options.createTopics }),
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
    ...(options.registry === undefined ? {} : { registry: options.registry }),
  });
}
