import {
  loadConfigOrExit,
  redisClusterUnsupported,
  redisCredentialVars,
  redisTopologyRule,
  redisTopologyVars,
  vars,
} from "@platform/config";
import { REFRESH_TOKEN_RETENTION_MS } from "@platform/proto/topics";
import { kafkaCredentialVars, kafkaTopicVars, serviceVars } from "@platform/service";
import { z } from "zod";

/*
 * Order matters: the first bad variable is the one reported, so the connection settings every
 * deployment has come first and the auth-specific ones after them.
 */
export const authConfigSchema = z
  .object({
    ...serviceVars,
    /** REDIS_URL, or the cluster or Sentinel nodes (REDIS_MODE): redisTopologyVars. */
    ...redisTopologyVars,
    ...redisCredentialVars,
    KAFKA_BROKERS: vars.hostPortList(),
    /** Its own Kafka user, both or neither (kafkaCredentialVars); never logged. */
    ...kafkaCredentialVars,
    /**
     * API-key administration (AuthAdminService, the admin CLI's) on a listener of its own. Loopback
     * by default, and in Kubernetes: operators reach it with `kubectl port-forward`, no pod can.
     */
    ADMIN_GRPC_HOST: vars.string().default("127.0.0.1"),
    ADMIN_GRPC_PORT: vars.port().default(50061),
    /** Replication of auth.api-keys.v1 when the start-up migration creates it; 1 on a single broker. */
    KAFKA_REPLICATION_FACTOR: vars.positiveInt().default(3),
    /** KAFKA_CREATE_TOPICS: create its topics (true, a bare broker) or wait for the topics step (false). */
    ...kafkaTopicVars,
    /** File holding the HMAC pepper for key secrets and refresh tokens (a Kubernetes Secret). */
    AUTH_PEPPER_FILE: vars.string(),
    /** Folder of signing-key files, one JSON file per key (a Kubernetes Secret). */
    AUTH_SIGNING_KEYS_DIR: vars.string(),
    /** How often the signing-key folder is read again, so rotation needs no restart. */
    AUTH_SIGNING_KEYS_RELOAD_MS: vars.positiveInt().default(5_000),
    AUTH_ISSUER: vars.string().default("platform-auth"),
    AUTH_AUDIENCE: vars.string().default("platform-api"),
    ACCESS_TOKEN_TTL_SECONDS: vars.positiveInt().default(900),
    /** At most auth.refresh-tokens.v1's retention (31 days): a rebuild must still find every live token. */
    REFRESH_TOKEN_TTL_SECONDS: vars.positiveInt().default(2_592_000),
    /** Live refresh tokens kept per API key: an API_KEY grant past it drops the key's tokens that expire first. */
    AUTH_REFRESH_TOKENS_PER_KEY: vars.positiveInt().default(25),
    /** API_KEY grants (each a refresh token and an event) per key per minute; past it, 503 with Retry-After until the minute ends. */
    AUTH_GRANTS_PER_KEY_PER_MINUTE: vars.positiveInt().default(30),
    /** Rate-limit tiers a key may have; the gateway knows each tier's budget. Browser keys all have `browser` (registry/keyKinds.ts): leave it out and none can be created. */
    AUTH_TIERS: vars.list().default(["free", "standard", "unlimited", "browser"]),
    /** The tier of a key created without one. */
    AUTH_DEFAULT_TIER: vars.string().default("standard"),
    /** Failures are counted per client address (an IPv6 /64) over this window, from its first failure. */
    AUTH_LOCKOUT_WINDOW_SECONDS: vars.positiveInt().default(900),
    /** From this many failures of one address (any key id) on, its failures are slowed down (a correct secret never is). */
    AUTH_LOCKOUT_ADDRESS_SLOW_AFTER: vars.positiveInt().default(20),
    /** Past this many failures in the window, an address is refused at once (no lookup, no write) until its window ends. */
    AUTH_LOCKOUT_ADDRESS_BUDGET: vars.positiveInt().default(5_000),
    /** The longest slow-down of one answer. */
    AUTH_LOCKOUT_MAX_DELAY_MS: vars.positiveInt().default(2_000),
  })
  .superRefine((config, context) => {
    if (config.REFRESH_TOKEN_TTL_SECONDS * 1_000 > REFRESH_TOKEN_RETENTION_MS) {
      context.addIssue({
        code: "custom",
        path: ["REFRESH_TOKEN_TTL_SECONDS"],
        message: `must not exceed ${REFRESH_TOKEN_RETENTION_MS / 1_000} (how long auth.refresh-tokens.v1 keeps an issued token)`,
      });
    }
    if (!config.AUTH_TIERS.includes(config.AUTH_DEFAULT_TIER)) {
      context.addIssue({
        code: "custom",
        path: ["AUTH_DEFAULT_TIER"],
        message: `must be one of AUTH_TIERS (${config.AUTH_TIERS.join(", ")})`,
      });
    }
    if (config.AUTH_LOCKOUT_ADDRESS_BUDGET < config.AUTH_LOCKOUT_ADDRESS_SLOW_AFTER) {
      context.addIssue({
        code: "custom",
        path: ["AUTH_LOCKOUT_ADDRESS_BUDGET"],
        message: "must not be below AUTH_LOCKOUT_ADDRESS_SLOW_AFTER",
      });
    }
  })
  .superRefine(redisTopologyRule)
  .superRefine(redisClusterUnsupported("its registry's transactions span keys of many slots"));

export type AuthConfig = z.infer<typeof authConfigSchema>;

export const loadAuthConfig = (env: NodeJS.ProcessEnv = process.env): AuthConfig =>
  loadConfigOrExit("auth", authConfigSchema, env);
