import { Redis } from "ioredis";
import { isTracingEnabled } from "@platform/telemetry";
import { traceRedisCommands } from "./redisTracing.js";

export type { Redis } from "ioredis";

export interface CreateRedisOptions {
  url: string;
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
  const redis = new Redis(options.url, {
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
