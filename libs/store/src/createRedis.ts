import { isTracingEnabled } from "@platform/telemetry";
import { Redis } from "ioredis";
import { traceRedisCommands } from "./redisTracing.js";

export type { Redis } from "ioredis";

/** Where Redis is and who the service is there: its own ACL user (redisAcl.ts) when the server has ACLs. */
export interface RedisConnection {
  /** `redis://host:port` or `rediss://…`; credentials in it count only when username and password are not given. */
  url: string;
  username?: string | undefined;
  password?: string | undefined;
}

/** The connection a service's configuration names (REDIS_URL, REDIS_USERNAME, REDIS_PASSWORD). */
export function redisConnectionOf(config: {
  REDIS_URL: string;
  REDIS_USERNAME?: string | undefined;
  REDIS_PASSWORD?: string | undefined;
}): RedisConnection {
  return { url: config.REDIS_URL, username: config.REDIS_USERNAME, password: config.REDIS_PASSWORD };
}

export interface CreateRedisOptions extends RedisConnection {
  /** Shown by CLIENT LIST, so an operator can tell the services' connections apart. */
  connectionName: string;
  /** Per-command budget; a command that takes longer fails instead of holding a request. */
  commandTimeoutMs?: number;
}

/**
 * A Redis connection that fails fast while the server is away (no offline queue, one attempt per
 * command) and reconnects by itself forever, so callers answer 503 quickly and recover unattended.
 */
export function createRedis(options: CreateRedisOptions): Redis {
  const explicit = options.username !== undefined || options.password !== undefined;
  // ioredis prefers the URL's credentials to its options': the configured ones must win.
  const redis = new Redis(explicit ? withoutCredentials(options.url) : options.url, {
    ...(options.username === undefined ? {} : { username: options.username }),
    ...(options.password === undefined ? {} : { password: options.password }),
    connectionName: options.connectionName,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 2_000,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(100 * attempt, 1_000),
    lazyConnect: false,
  });
  // Connection errors surface through readiness and failed commands; an unhandled 'error' event
  // would otherwise crash the process.
  redis.on("error", () => undefined);
  if (isTracingEnabled()) traceRedisCommands(redis);
  return redis;
}

function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  parsed.username = "";
  parsed.password = "";
  return parsed.toString();
}

/** True when Redis answers PING within the timeout; never throws. */
export async function redisReadiness(redis: Redis, timeoutMs = 1_000): Promise<boolean> {
  if (redis.status !== "ready") return false;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    return (await Promise.race([redis.ping(), timeout])) === "PONG";
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
