import { vars } from "@platform/config";
import { DEFAULT_CHAIN_TOPICS_RETENTION_MS } from "@platform/proto/topics";

/**
 * How long the chain topics (chain.network.v1, oracle.prices.v1: the catalog's `chainRetention`)
 * keep their records, for whatever creates or migrates them: the platform's topics step (the
 * projector image's `dist/topics.js`, the Job kafka-topics), which brings existing topics to it;
 * and, on a bare broker (KAFKA_CREATE_TOPICS=true), the chain-ingestor, which does the same, and
 * the projector, which creates them when it starts first. 7 days by default; -1 keeps them for ever. Their projections keep their history in
 * PostgreSQL, so a rebuild reads it and replays only the topic's tail. Set it to the same value on
 * every service that reads it.
 */
export const chainTopicVars = {
  CHAIN_TOPICS_RETENTION_MS: vars.retentionMs().default(DEFAULT_CHAIN_TOPICS_RETENTION_MS),
};

/**
 * Whether the service creates the topics it needs (and, as their owner, brings their configs to
 * the catalog) or only waits for them: `true` by default, for a bare broker (tests, a developer's
 * own Kafka); `false` in the platform's deployments, where a topics step of its own creates them
 * before the services (the Kubernetes Job `kafka-topics`, the local stack's topics step) and the
 * services' Kafka users hold no CREATE or ALTER_CONFIGS. Waiting, a service is not ready until its
 * topics exist, and becomes ready by itself once they do.
 */
export const kafkaTopicVars = {
  KAFKA_CREATE_TOPICS: vars.boolean().default(true),
};
