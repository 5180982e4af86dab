import { replicationFor } from "@platform/projection";
import { TOPICS } from "@platform/proto/topics";
import { accountsKeys } from "@platform/read-models";
import {
  type ProjectionStartOptions,
  type ProjectionSupervisor,
  superviseProjection,
} from "../supervisor/projectionSupervisor.js";
import { readModelMetrics } from "../supervisor/readModelMetrics.js";
import { accountsProjection } from "./projection.js";

export const ACCOUNTS_GROUP_ID = "projector-accounts";
export const ACCOUNTS_TOPICS = [TOPICS.chainNetwork.name] as const;

/** Runs the accounts projection under the generic supervisor (rebuild when Redis loses it). */
export function startAccountsProjection(options: ProjectionStartOptions): ProjectionSupervisor {
  const projection = accountsProjection({
    redis: options.projectionRedis,
    history: options.history,
    log: options.log,
    ...(options.signals === undefined ? {} : { signals: options.signals }),
    replication: replicationFor("accounts", options),
    ...(options.registry === undefined ? {} : { readModels: readModelMetrics(options.registry) }),
  });
  return superviseProjection({
    name: "accounts",
    kafka: options.kafka,
    redis: options.redis,
    log: options.log,
    groupId: ACCOUNTS_GROUP_ID,
    topics: ACCOUNTS_TOPICS,
    markerKey: accountsKeys.marker,
    projection,
    replicationFactor: options.replicationFactor,
    chainTopicsRetentionMs: options.chainTopicsRetentionMs,
    ...(options.createTopics === undefined ? {} : { createTopics: options.createTopics }),
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
    ...(options.registry === undefined ? {} : { registry: options.registry }),
  });
}
