import {
  loadConfigOrExit,
  natsCredentialVars,
  postgresVars,
  redisCredentialVars,
  redisTopologyRule,
  redisTopologyVars,
  vars,
} from "@platform/config";
import { chainTopicVars, kafkaCredentialVars, kafkaTopicVars, serviceVars } from "@platform/service";
import { z } from "zod";
import { DEFAULT_HOT_WINDOW_BLOCKS } from "./market/keys.js";

export const PROJECTIONS = ["intents", "accounts", "market", "subnets"] as const;

export const projectorConfigSchema = z
  .object({
    ...serviceVars,
    KAFKA_BROKERS: vars.hostPortList(),
    /** Its own Kafka user, both or neither (kafkaCredentialVars); never logged. */
    ...kafkaCredentialVars,
    /** REDIS_URL, or the cluster or Sentinel nodes (REDIS_MODE): redisTopologyVars. */
    ...redisTopologyVars,
    ...redisCredentialVars,
    NATS_URL: vars.url(["nats", "tls"]),
    ...natsCredentialVars,
    /**
     * The history database (PostgreSQL) and the projector's role there: POSTGRES_URL (no
     * credentials), POSTGRES_USERNAME/POSTGRES_PASSWORD, POSTGRES_POOL_SIZE. Required when
     * PROJECTIONS lists `accounts`; market and subnets keep every series point there when it is set.
     */
    ...postgresVars,
    POSTGRES_URL: postgresVars.POSTGRES_URL.optional(),
    /** Projections this process runs, each its own consumer group, so they deploy and scale apart. */
    PROJECTIONS: vars
      .list()
      .refine((names) => names.every((name) => (PROJECTIONS as readonly string[]).includes(name)), {
        error: `must list projections among ${PROJECTIONS.join(", ")}`,
      })
      .transform((names) => [...new Set(names)] as Array<(typeof PROJECTIONS)[number]>),
    /**
     * Replicas of the Redis primary each commit must reach (WAIT) before its change signal goes
     * out; 0 (the default) waits for none, as a standalone Redis has none. 1 with a Redis Cluster or
     * a Sentinel-managed primary that has replicas: docs/deployment.md "Failover: no answer goes back".
     */
    REDIS_WAIT_REPLICAS: vars.nonNegativeInt().default(0),
    /** How long a commit waits for them before it goes on without (logged and counted); 1,000 ms by default. */
    REDIS_WAIT_TIMEOUT_MS: vars.positiveInt().default(1_000),
    /**
     * The hot window: how many of the newest blocks' points Redis keeps of the series written at every
     * block (each subnet's pool). Older points live only in the history database, so Redis stops
     * growing with the chain once the window is full; reads at older blocks go there. 7,200 (a
     * Finney day) by default.
     */
    REDIS_HOT_WINDOW_BLOCKS: vars.positiveInt().default(DEFAULT_HOT_WINDOW_BLOCKS),
    /** Replication of the topics a projection creates when it starts before their producers; 3 in production. */
    KAFKA_REPLICATION_FACTOR: vars.positiveInt().default(3),
    /** KAFKA_CREATE_TOPICS: create its topics (true, a bare broker) or wait for the topics step (false). */
    ...kafkaTopicVars,
    /** CHAIN_TOPICS_RETENTION_MS: `retention.ms` of chain.network.v1 and oracle.prices.v1 (7 days by default). */
    ...chainTopicVars,
    /**
     * FullSettler's REFUND_GRACE in seconds (fixed in the contract at deployment; 60 on the devnet):
     * an intent's refundable_at is its fill deadline plus this. Carried in configuration so the
     * projector needs no chain access; it must match the deployed settlers. Required when PROJECTIONS
     * lists `intents`.
     */
    INTENTS_REFUND_GRACE_SECONDS: vars.positiveInt().optional(),
  })
  .superRefine((config, context) => {
    if (config.PROJECTIONS.includes("intents") && config.INTENTS_REFUND_GRACE_SECONDS === undefined) {
      context.addIssue({
        code: "custom",
        path: ["INTENTS_REFUND_GRACE_SECONDS"],
        message: "is required when PROJECTIONS lists intents",
      });
    }
    if (config.PROJECTIONS.includes("accounts") && config.POSTGRES_URL === undefined) {
      context.addIssue({
        code: "custom",
        path: ["POSTGRES_URL"],
        message: "is required when PROJECTIONS lists accounts",
      });
    }
  })
  .superRefine(redisTopologyRule);

export type ProjectorConfig = z.infer<typeof projectorConfigSchema>;

/**
 * Whether the projector opens the history database: accounts needs it; market and subnets keep
 * every point there when it is configured (and only their Redis window without it), and intents
 * mirrors its orders there (intents/historyMirror.ts).
 */
export const usesHistory = (config: Pick<ProjectorConfig, "PROJECTIONS" | "POSTGRES_URL">): boolean =>
  config.POSTGRES_URL !== undefined && config.PROJECTIONS.length > 0;

export const loadProjectorConfig = (env: NodeJS.ProcessEnv = process.env): ProjectorConfig =>
  loadConfigOrExit("projector", projectorConfigSchema, env);
