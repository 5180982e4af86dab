import {
  loadConfigOrExit,
  natsCredentialVars,
  redisCredentialVars,
  redisTopologyRule,
  redisTopologyVars,
  vars,
} from "@platform/config";
import { z } from "zod";
import { isOrigin } from "./http/cors.js";
import { NO_TRUSTED_PROXIES, parseTrustedProxies } from "./http/trustedProxies.js";

export const gatewayConfigSchema = z
  .object({
    HTTP_HOST: vars.string().default("127.0.0.1"),
    HTTP_PORT: vars.port().default(8080),
    /** /metrics and the detailed /readyz (every dependency's state): for the kubelet and Prometheus, not the public. */
    OPS_HOST: vars.string().default("127.0.0.1"),
    OPS_PORT: vars.port().default(9464),
    /** Base of absolute links in problem types and the OpenAPI `servers` entry. */
    PUBLIC_BASE_URL: vars.url(["http", "https"]).default("http://127.0.0.1:8080"),
    /** REDIS_URL, or the cluster or Sentinel nodes (REDIS_MODE): redisTopologyVars. */
    ...redisTopologyVars,
    ...redisCredentialVars,
    AUTH_GRPC_TARGET: vars.string(),
    TC_GRPC_TARGET: vars.string(),
    INTENTS_GRPC_TARGET: vars.string(),
    DATA_ACCOUNTS_GRPC_TARGET: vars.string(),
    DATA_MARKET_GRPC_TARGET: vars.string(),
    DATA_SUBNETS_GRPC_TARGET: vars.string(),
    /** data-query's `events` group (GET /data/v1/events); by default served beside the market group. */
    DATA_EVENTS_GRPC_TARGET: vars.string().optional(),
    /**
     * NATS, where the projections publish `readmodel.changed.<projection>` after each commit: with it
     * the gateway answers a conditional Data API read 304 from memory while the read model behind
     * the answer has not changed. Without it, or while it is down, every conditional read calls
     * data-query (the gateway stays ready).
     */
    NATS_URL: vars.url(["nats", "tls"]).optional(),
    ...natsCredentialVars,
    /**
     * The chain's block time, seconds: a Data API answer's Cache-Control max-age runs to the next
     * block expected after its as_of (at most this long), and the gateway keeps it no longer.
     */
    DATA_BLOCK_SECONDS: vars.positiveInt().default(12),
    /**
     * Bound on the Data API answers the gateway keeps (their bodies and keys, bytes): an eighth of the
     * gateway's 256 MiB memory request in Kubernetes by default. The least recently used go first.
     */
    KEPT_ANSWERS_MAX_BYTES: vars.positiveInt().default(32 * 1024 * 1024),
    /** Deadline of every gRPC call made for a request. */
    GRPC_DEADLINE_MS: vars.positiveInt().default(2_000),
    /**
     * Calls to one backend address made in the same event-loop turn travel in one HTTP/2 stream
     * (libs/grpc CallBatchService) instead of one stream each. Off: every call is its own stream.
     */
    GRPC_BATCH_CALLS: vars.boolean().default(true),
    LOG_LEVEL: vars.logLevel().default("info"),
    READINESS_INTERVAL_MS: vars.positiveInt().default(1_000),
    SHUTDOWN_TIMEOUT_MS: vars.positiveInt().default(15_000),
    /**
     * Rate-limit tiers, `name=rate/burst` (units per second / units at once), comma separated. A
     * key's tier is in its access token; an unknown tier falls back to RATE_LIMIT_DEFAULT_TIER.
     */
    RATE_LIMIT_TIERS: vars.string().default("free=5/10,standard=50/100,unlimited=100000/100000,browser=10/20"),
    RATE_LIMIT_DEFAULT_TIER: vars.string().default("standard"),
    /** Leeway for token expiry and issue times, seconds. */
    TOKEN_CLOCK_TOLERANCE_SECONDS: vars.positiveInt().default(30),
    /**
     * Address ranges (IPv4 and IPv6 CIDRs, comma separated) of the proxies in front of the gateway:
     * X-Forwarded-For is read only on a connection from one of them, past every entry inside them
     * (http/requestContext.ts). Unset: none, the connection's peer is the client. In Kubernetes the
     * pod range of the Ingress controller, whose namespace alone the NetworkPolicy admits.
     */
    TRUST_PROXY_CIDRS: z
      .string()
      .optional()
      .transform((value, context) => {
        if (value === undefined) return NO_TRUSTED_PROXIES;
        try {
          return parseTrustedProxies(value);
        } catch (error) {
          context.addIssue({
            code: "custom",
            message: `must be IPv4/IPv6 CIDRs, comma separated: ${(error as Error).message}`,
          });
          return z.NEVER;
        }
      }),
    /**
     * Replaced by TRUST_PROXY_CIDRS: a count of hops believed X-Forwarded-For from any peer, so a
     * client that reached the gateway directly chose its own address. Refused, so a deployment that
     * still sets it fails at start instead of silently counting every client as its proxy.
     */
    TRUST_PROXY_HOPS: z
      .undefined({ error: "is no longer read: set TRUST_PROXY_CIDRS to the proxies' address ranges instead" })
      .optional(),
    /** Event streams (GET /intents/v1/events, /data/v1/events) one API key may hold open at once. */
    EVENT_STREAMS_PER_KEY: vars.positiveInt().default(5),
    /** A comment line on every event stream this often, so proxies keep idle streams open. */
    EVENT_STREAM_HEARTBEAT_MS: vars.positiveInt().default(15_000),
    /** A stream's client that leaves this many bytes unread is dropped with a final event. */
    EVENT_STREAM_MAX_BUFFERED_BYTES: vars.positiveInt().default(256 * 1024),
    /** How often the keys of open streams are checked for revocation and rotation (streams close within this). */
    EVENT_STREAM_KEY_CHECK_MS: vars.positiveInt().default(2_000),
    /** A stream's slot lease in Redis, renewed at a third of it: how long a dead replica's streams still count. */
    EVENT_STREAM_LEASE_MS: vars.positiveInt().default(30_000),
    /**
     * A resumed event stream's replay (the events before `live`) spends one unit of the key's rate
     * budget for every this many events, besides the unit its opening costs.
     */
    EVENT_REPLAY_EVENTS_PER_UNIT: vars.positiveInt().default(100),
    /** Connections the public HTTP server holds at once; one more is closed as it arrives. */
    /**
     * Origins (`https://app.example.com`, comma separated) whose pages may call the API from a
     * browser: CORS answers for them (http/cors.ts). Empty by default: no other origin's page reads
     * an answer, and their preflights answer 403.
     */
    CORS_ALLOWED_ORIGINS: vars
      .list()
      .default([])
      .refine((origins) => origins.every(isOrigin), {
        error: "must be origins (scheme://host[:port], no path or trailing slash), comma separated",
      }),
    HTTP_MAX_CONNECTIONS: vars.positiveInt().default(10_000),
    /** Connections one client address (an IPv6 /64) may hold at once; connections from TRUST_PROXY_CIDRS are not counted. */
    HTTP_MAX_CONNECTIONS_PER_ADDRESS: vars.positiveInt().default(256),
    /** How long a client may take to send its request headers before it gets 408 and is closed. */
    HTTP_HEADERS_TIMEOUT_MS: vars.positiveInt().default(10_000),
    /** How long a client may take to send its whole request (headers and body; an answer may last longer). */
    HTTP_REQUEST_TIMEOUT_MS: vars.positiveInt().default(30_000),
    /** An idle keep-alive connection is closed after this: above the load balancer's 60 s, so that one closes first. */
    HTTP_KEEP_ALIVE_TIMEOUT_MS: vars.positiveInt().default(65_000),
    /**
     * Event streams one gateway replica serves at once, every key together (each holds a socket, a
     * backend watch and up to EVENT_STREAM_MAX_BUFFERED_BYTES unread): past it 503 UNAVAILABLE with
     * Retry-After, so another replica takes the stream.
     */
    EVENT_STREAMS_PER_REPLICA: vars.positiveInt().default(1_000),
    /** Largest accepted JSON body. */
    MAX_BODY_BYTES: vars.positiveInt().default(64 * 1024),
  })
  .superRefine(redisTopologyRule);

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const loadGatewayConfig = (env: NodeJS.ProcessEnv = process.env): GatewayConfig =>
  loadConfigOrExit("gateway", gatewayConfigSchema, env);
