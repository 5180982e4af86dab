import { readFileSync } from "node:fs";
import { isTracingEnabled } from "@platform/telemetry";
import { Cluster, Redis as RedisNode, type RedisOptions } from "ioredis";
import { traceRedisCommands } from "./redisTracing.js";

/**
 * A connection to Redis, whatever its topology: one server (or a Sentinel-managed primary), or a
 * Redis Cluster. Both take the same commands; on a cluster every MULTI/EXEC, script and pipeline
 * must keep to one hash slot (libs/read-models hashTags.ts).
 */
export type Redis = RedisNode | Cluster;
export type { RedisNode };

/**
 * Where Redis is and who the service is there: its own ACL user (redisAcl.ts) when the server has ACLs.
 * `mode` picks the topology (standalone by default): `url` names a standalone server, `nodes` some
 * of a cluster's nodes (ioredis finds the rest), `sentinels` and `sentinelName` the Sentinels that
 * know the current primary of that name.
 */
export interface RedisConnection {
  mode?: RedisMode | undefined;
  /** `redis://host:port` or `rediss://…`; credentials in it count only when username and password are not given. */
  url?: string | undefined;
  /** Cluster mode: `host:port` of one or more nodes. */
  nodes?: readonly string[] | undefined;
  /** Sentinel mode: `host:port` of the Sentinels. */
  sentinels?: readonly string[] | undefined;
  /** Sentinel mode: the name the Sentinels monitor the primary under. */
  sentinelName?: string | undefined;
  /** Cluster mode: `replicas` sends read-only commands to replicas (READONLY); `primary` by default. */
  readFrom?: RedisReadFrom | undefined;
  username?: string | undefined;
  password?: string | undefined;
  /**
   * TLS to every connection: the nodes' and the Sentinels' (a `rediss://` URL turns it on for a
   * standalone server too), checked against `caFile` (PEM) when given, else the system's CAs.
   */
  tls?: { caFile?: string | undefined } | undefined;
}

export type RedisMode = "standalone" | "cluster" | "sentinel";
export type RedisReadFrom = "primary" | "replicas";

/** The connection a service's configuration names (REDIS_MODE, REDIS_URL, REDIS_NODES, …; libs/config redisTopologyVars). */
export function redisConnectionOf(config: {
  REDIS_MODE?: RedisMode | undefined;
  REDIS_URL?: string | undefined;
  REDIS_NODES?: readonly string[] | undefined;
  REDIS_SENTINELS?: readonly string[] | undefined;
  REDIS_SENTINEL_NAME?: string | undefined;
  REDIS_READ_FROM?: RedisReadFrom | undefined;
  REDIS_USERNAME?: string | undefined;
  REDIS_PASSWORD?: string | undefined;
  REDIS_TLS?: boolean | undefined;
  REDIS_TLS_CA_FILE?: string | undefined;
}): RedisConnection {
  return {
    mode: config.REDIS_MODE,
    url: config.REDIS_URL,
    nodes: config.REDIS_NODES,
    sentinels: config.REDIS_SENTINELS,
    sentinelName: config.REDIS_SENTINEL_NAME,
    readFrom: config.REDIS_READ_FROM,
    username: config.REDIS_USERNAME,
    password: config.REDIS_PASSWORD,
    ...(config.REDIS_TLS === true || config.REDIS_TLS_CA_FILE !== undefined
      ? { tls: { caFile: config.REDIS_TLS_CA_FILE } }
      : {}),
  };
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
 * The same holds on each node of a cluster, and for a Sentinel-managed primary (which ioredis asks
 * the Sentinels for again on every reconnect, so a failover is followed).
 */
export function createRedis(options: CreateRedisOptions): Redis {
  const mode = options.mode ?? "standalone";
  const redis =
    mode === "cluster"
      ? new Cluster(addresses(options.nodes, "nodes", mode), {
          redisOptions: nodeOptions(options),
          enableOfflineQueue: false,
          // Reading from replicas may answer a write's effect late (replication is asynchronous).
          scaleReads: options.readFrom === "replicas" ? "slave" : "master",
          clusterRetryStrategy: reconnectDelay,
          lazyConnect: false,
        })
      : mode === "sentinel"
        ? new RedisNode({
            ...nodeOptions(options),
            sentinels: addresses(options.sentinels, "sentinels", mode),
            name: required(options.sentinelName, "sentinelName", mode),
            role: "master",
            sentinelRetryStrategy: reconnectDelay,
            ...(options.tls === undefined
              ? {}
              : { enableTLSForSentinelMode: true, sentinelTLS: tlsOptions(options.tls) }),
          })
        : standalone(options);
  // Connection errors surface through readiness and failed commands; an unhandled 'error' event
  // would otherwise crash the process.
  redis.on("error", () => undefined);
  if (isTracingEnabled()) forEachNode(redis, traceRedisCommands);
  return redis;
}

function standalone(options: CreateRedisOptions): RedisNode {
  const url = required(options.url, "url", "standalone");
  const explicit = options.username !== undefined || options.password !== undefined;
  // ioredis prefers the URL's credentials to its options': the configured ones must win.
  return new RedisNode(explicit ? withoutCredentials(url) : url, nodeOptions(options));
}

/** The fail-fast options of one connection (for a cluster: of each node's). */
function nodeOptions(options: CreateRedisOptions): RedisOptions {
  return {
    ...(options.username === undefined ? {} : { username: options.username }),
    ...(options.password === undefined ? {} : { password: options.password }),
    ...(options.tls === undefined ? {} : { tls: tlsOptions(options.tls) }),
    connectionName: options.connectionName,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 2_000,
    connectTimeout: 2_000,
    retryStrategy: reconnectDelay,
    lazyConnect: false,
  };
}

/** Read once per client: a CA file that cannot be read fails the start, not a later reconnect. */
function tlsOptions(tls: NonNullable<RedisConnection["tls"]>): { ca?: Buffer } {
  return tls.caFile === undefined ? {} : { ca: readFileSync(tls.caFile) };
}

const reconnectDelay = (attempt: number) => Math.min(100 * attempt, 1_000);

function required<T>(value: T | undefined, field: string, mode: RedisMode): T {
  if (value === undefined) throw new Error(`a ${mode} Redis connection needs ${field}`);
  return value;
}

function addresses(list: readonly string[] | undefined, field: string, mode: RedisMode) {
  const items = required(list, field, mode);
  if (items.length === 0) throw new Error(`a ${mode} Redis connection needs at least one of ${field}`);
  return items.map((item) => {
    const at = item.lastIndexOf(":");
    return { host: item.slice(0, at), port: Number(item.slice(at + 1)) };
  });
}

function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  parsed.username = "";
  parsed.password = "";
  return parsed.toString();
}

/**
 * Runs `apply` on each server connection: the connection itself, or every node connection of a
 * cluster, now and as the cluster adds them (after a failover or a resharding).
 */
export function forEachNode(redis: Redis, apply: (node: RedisNode) => void): void {
  if (!(redis instanceof Cluster)) {
    apply(redis);
    return;
  }
  for (const node of redis.nodes("all")) apply(node);
  redis.on("+node", apply);
}

/**
 * True when Redis answers PING within the timeout; never throws. On a cluster: when the client
 * has the slot map and every primary it knows answers (a primary down fails the reads and writes
 * of its slots until its replica takes over).
 */
export async function redisReadiness(redis: Redis, timeoutMs = 1_000): Promise<boolean> {
  if (redis.status !== "ready") return false;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const pings =
      redis instanceof Cluster
        ? Promise.all(redis.nodes("master").map((node) => node.ping())).then((answers) =>
            answers.length > 0 && answers.every((answer) => answer === "PONG") ? "PONG" : "no",
          )
        : redis.ping();
    return (await Promise.race([pings, timeout])) === "PONG";
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
