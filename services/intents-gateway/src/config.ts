import {
  loadConfigOrExit,
  natsCredentialVars,
  redisCredentialVars,
  redisTopologyRule,
  redisTopologyVars,
  vars,
} from "@platform/config";
import { kafkaCredentialVars, kafkaTopicVars, serviceVars } from "@platform/service";
import { z } from "zod";

export const intentsGatewayConfigSchema = z
  .object({
    ...serviceVars,
    /** REDIS_URL, or the cluster or Sentinel nodes (REDIS_MODE): redisTopologyVars. */
    ...redisTopologyVars,
    ...redisCredentialVars,
    KAFKA_BROKERS: vars.hostPortList(),
    /** Its own Kafka user, both or neither (kafkaCredentialVars); never logged. */
    ...kafkaCredentialVars,
    NATS_URL: vars.url(["nats", "tls"]),
    ...natsCredentialVars,
    TC_GRPC_TARGET: vars.string(),
    /** Deployment data: chains, RPC URLs, settler addresses (deploy/config/<env>/chains.json). */
    CHAINS_FILE: vars.string(),
    /**
     * Where this environment's deployment data (deploy/config/<env>/deployment.v1.json, with the
     * deployed addresses) is published; UNSUPPORTED_ROUTE problems link to it. Unset, a `file:` URL
     * or one with a user name or password (never shown to the public), they name the environment only.
     */
    DEPLOYMENT_DATA_URL: vars.url(["https", "http", "file"]).optional(),
    /** Replication of the topics this service creates; 3 in production, 1 on a single-broker stack. */
    KAFKA_REPLICATION_FACTOR: vars.positiveInt().default(3),
    /** KAFKA_CREATE_TOPICS: create its topics (true, a bare broker) or wait for the topics step (false). */
    ...kafkaTopicVars,
    /**
     * Preferred time between quoting and the suggested fillDeadline, seconds. Clamped into what the
     * origin settler accepts (its minFillWindow plus the quote's lifetime, up to its maxFillBuffer).
     */
    FILL_DEADLINE_WINDOW_SECONDS: vars.positiveInt().default(900),
    /**
     * How long a quote is kept after it expires, so preflight can say "expired" rather than
     * "unknown quote" for a while.
     */
    QUOTE_RETENTION_SECONDS: vars.positiveInt().default(3_600),
    /**
     * Quotes one API key keeps at most (about 1.4 KB of Redis each); a new quote past it drops the
     * key's quotes that expire first. 5,000 holds 100 s of quoting at the standard tier's full rate
     * (50/s), longer than a route's usual lifetime, so only quotes already past validUntil go.
     */
    QUOTES_PER_KEY: vars.positiveInt().default(5_000),
    /** Gas assumed for `open` when the simulation cannot estimate it (it reverted). */
    OPEN_GAS_FALLBACK: vars.positiveInt().default(250_000),
    /**
     * Per intents chain, the JSON-RPC requests of user-triggered reads (quotes, preflight,
     * notification look-ups) sent to the node at once, and how many more may wait; beyond, 503.
     */
    CHAIN_READS_MAX_IN_FLIGHT: vars.positiveInt().default(32),
    CHAIN_READS_MAX_QUEUED: vars.positiveInt().default(128),
    /**
     * Whether the per-key limits below hold across every replica (`shared`: a lease per call in
     * Redis, two round trips each) or in each replica alone (`replica`: N replicas let N × the limit).
     */
    PER_KEY_LIMITS: vars.oneOf(["shared", "replica"]).default("shared"),
    /** Preflights one API key may have in progress at once; more answer 429. */
    PREFLIGHT_MAX_CONCURRENT_PER_KEY: vars.positiveInt().default(2),
    /** Quotes (four chain reads each) one API key may have in progress at once; more answer 429. */
    QUOTES_MAX_CONCURRENT_PER_KEY: vars.positiveInt().default(4),
    /** Notifications (a transaction look-up each) one API key may have in progress at once; more answer 429. */
    NOTIFY_MAX_CONCURRENT_PER_KEY: vars.positiveInt().default(4),
    /** WatchIntents reads the change log's tail at least this often, whatever the NATS signals say. */
    WATCH_POLL_MS: vars.positiveInt().default(1_000),
    /** A WatchIntents resume replays at most this many change-log entries, then says `gap`. */
    WATCH_MAX_REPLAY_ENTRIES: vars.positiveInt().default(1_000),
    /** A WatchIntents caller that leaves this many bytes unread is ended (RESOURCE_EXHAUSTED). */
    WATCH_MAX_BUFFERED_BYTES: vars.positiveInt().default(1024 * 1024),
  })
  .superRefine(redisTopologyRule);

export type IntentsGatewayConfig = z.infer<typeof intentsGatewayConfigSchema>;

export const loadIntentsGatewayConfig = (env: NodeJS.ProcessEnv = process.env): IntentsGatewayConfig =>
  loadConfigOrExit("intents-gateway", intentsGatewayConfigSchema, env);
