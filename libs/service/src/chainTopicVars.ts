import { vars } from "@platform/config";
import { DEFAULT_CHAIN_TOPICS_RETENTION_MS } from "@platform/proto/topics";

/**
 * How long the chain topics (chain.network.v1, oracle.prices.v1: the catalog's `chainRetention`)
 * keep their records, for a service that creates or migrates them (the chain-ingestor, their
 * owner, which brings existing topics to it; the projector, which creates them when it starts
 * first). 7 days by default; -1 keeps them for ever. Their projections keep their history in
 * PostgreSQL, so a rebuild reads it and replays only the topic's tail. Set it to the same value on
 * every service that reads it.
 */
export const chainTopicVars = {
  CHAIN_TOPICS_RETENTION_MS: vars.retentionMs().default(DEFAULT_CHAIN_TOPICS_RETENTION_MS),
};
