import { loadConfigOrExit, vars } from "@platform/config";
import { z } from "zod";

export const gatewayConfigSchema = z.object({
  HTTP_HOST: vars.string().default("127.0.0.1"),
  HTTP_PORT: vars.port().default(8080),
  /** /metrics and the detailed /readyz (every dependency's state): for the kubelet and Prometheus, not the public. */
  OPS_HOST: vars.string().default("127.0.0.1"),
  OPS_PORT: vars.port().default(9464),
  /** Base of absolute links in problem types and the OpenAPI `servers` entry. */
  PUBLIC_BASE_URL: vars.url(["http", "https"]).default("http://127.0.0.1:8080"),
  REDIS_URL: vars.url(["redis", "rediss"]),
  AUTH_GRPC_TARGET: vars.string(),
  TC_GRPC_TARGET: vars.string(),
  INTENTS_GRPC_TARGET: vars.string(),
  DATA_ACCOUNTS_GRPC_TARGET: vars.string(),
  DATA_MARKET_GRPC_TARGET: vars.string(),
  DATA_SUBNETS_GRPC_TARGET: vars.string(),
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
  RATE_LIMIT_TIERS: vars.string().default("free=5/10,standard=50/100,unlimited=100000/100000"),
  RATE_LIMIT_DEFAULT_TIER: vars.string().default("standard"),
  /** Leeway for token expiry and issue times, seconds. */
  TOKEN_CLOCK_TOLERANCE_SECONDS: vars.positiveInt().default(30),
  /** Proxy hops in front of the gateway whose X-Forwarded-For is trusted for the client address (0: none). */
  TRUST_PROXY_HOPS: vars.port().default(0),
  /** Largest accepted JSON body. */
  MAX_BODY_BYTES: vars.positiveInt().default(64 * 1024),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const loadGatewayConfig = (env: NodeJS.ProcessEnv = process.env): GatewayConfig =>
  loadConfigOrExit("gateway", gatewayConfigSchema, env);
