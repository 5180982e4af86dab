import { createHash } from "node:crypto";

/** The services that talk to Redis, each under an ACL user of the same name. */
export type RedisUser = "auth" | "tc" | "data-query" | "intents-gateway" | "projector" | "gateway";

export const REDIS_USERS: readonly RedisUser[] = [
  "auth",
  "tc",
  "data-query",
  "intents-gateway",
  "projector",
  "gateway",
];

/** What one service may do in Redis: Redis 7 ACL rules, as data. */
export interface RedisGrant {
  /** Key patterns it reads and writes (`~pattern`). */
  readWrite: readonly string[];
  /** Key patterns it only reads (`%R~pattern`). */
  readOnly: readonly string[];
  /** Commands and categories allowed, on top of `-@all` (the dangerous ones are taken away after them). */
  commands: readonly string[];
  /** Redis 7 selectors, `(<rules>)`: a command passes if the root rules or one selector allow it with all its keys. */
  selectors?: readonly string[];
}

// PING (readiness), CLIENT SETNAME (connection names), AUTH.
const CONNECTION = ["+@connection"];
// ioredis' defineCommand, versionedCommit and readVersioned send EVALSHA, then EVAL once when the
// server lacks the script (EVAL loads it on the node that runs it, also in a cluster).
const SCRIPTS = ["+evalsha", "+eval"];
const WRITER = [...CONNECTION, "+@read", "+@write", "+@transaction", ...SCRIPTS];

/**
 * Taken away after every grant, so no category brings them back: FLUSHALL, FLUSHDB, KEYS, CONFIG,
 * DEBUG, ACL, SHUTDOWN, MONITOR, CLIENT KILL, SORT, RESTORE, MIGRATE, replication and persistence;
 * FUNCTION (FLUSH, LOAD, DELETE are in @write, and no service uses Redis functions); and SCAN and
 * RANDOMKEY (in @read): they name keys without being bound to a key pattern, so any user could list
 * every service's keys (`tc:nonce:*`, `auth:fail:addr:<ip>`, `auth:key:*`). No service lists keys:
 * a family that must be enumerated keeps an index key (e.g. auth's `auth:keys` set).
 */
const NEVER = ["-@dangerous", "-@admin", "-function", "-scan", "-randomkey"];
/**
 * Given back after NEVER: ioredis sends INFO at every connect (its ready check; without it, it
 * warns on the console and goes on), and the scripts read Redis' clock with TIME (@fast only). On
 * a Redis Cluster its client learns the slot map with CLUSTER SLOTS and is ready once CLUSTER INFO
 * says `cluster_state:ok`: read-only questions about the cluster, while every other CLUSTER
 * subcommand (MEET, FAILOVER, RESET, …) stays refused.
 */
const ALWAYS = ["+info", "+time", "+cluster|slots", "+cluster|info"];

/**
 * The grant of each service: only the key families it uses, read-only where it only reads.
 * Key families are documented with their owners (the keys.ts modules of the services, libs/read-models).
 *
 * - Only auth writes `auth:*`; only the projector writes `rm:*` (the read models and their change
 *   logs); tc, intents-gateway and the gateway each write their own prefix.
 * - Redis checks a script's keys as written to (EVAL/EVALSHA declare their keys RW, whatever the
 *   script does), and again checks each command the script runs. The gateway's rate-limit script
 *   takes `auth:key:{id}` (read) and `rl:{id}:…` (written) together, for one round trip and one
 *   Cluster slot: a selector lets EVAL/EVALSHA name both, while inside the script HMGET on the key
 *   passes the root rules (read-only there) and HSET or DEL on it would not.
 */
export const REDIS_ACL: Readonly<Record<RedisUser, RedisGrant>> = {
  // The key registry, refresh tokens, lockout and grant counters, its offsets and marker.
  auth: { readWrite: ["auth:*"], readOnly: [], commands: WRITER },
  // Acceptances (its projection), nonces.
  tc: { readWrite: ["tc:*"], readOnly: [], commands: WRITER },
  // Every read model, its versions, offsets, markers and change logs.
  projector: { readWrite: ["rm:*"], readOnly: [], commands: WRITER },
  // Its quotes and notification claims; reads the intents read model and follows its change log.
  "intents-gateway": { readWrite: ["intents-gateway:*"], readOnly: ["rm:{intents}:*"], commands: WRITER },
  // Reads the data read models (accounts, market, subnets: one hash tag, libs/read-models hashTags.ts)
  // and follows `rm:{data}:changes`; MULTI/EXEC for consistent reads.
  "data-query": {
    readWrite: [],
    readOnly: ["rm:{data}:*"],
    commands: [...CONNECTION, "+@read", "+@transaction"],
  },
  // Rate-limit budgets and event-stream leases; reads auth's key records (revocation) and its marker.
  gateway: {
    readWrite: ["rl:*", "sse:*"],
    readOnly: ["auth:key:*", "auth:registry"],
    commands: [...CONNECTION, "+@read", "+@write", "+evalsha", "+eval"],
    selectors: ["(+evalsha +eval ~auth:key:* ~rl:*)"],
  },
};

/** The ACL rules of a grant, as `ACL SETUSER` and an ACL file take them (after the user's name and password). */
export function redisAclRules(grant: RedisGrant): string[] {
  return [
    "resetkeys",
    "resetchannels",
    "-@all",
    ...grant.commands,
    ...NEVER,
    ...ALWAYS,
    ...grant.readWrite.map((pattern) => `~${pattern}`),
    ...grant.readOnly.map((pattern) => `%R~${pattern}`),
    ...(grant.selectors ?? []),
  ];
}

/**
 * An ACL file for redis-server (`aclfile`): the `default` user off (a connection without
 * credentials can do nothing), an `admin` user for operators and tests, and each service's user
 * with its grant. Passwords are stored as their SHA-256 (`#<hex>`), never in clear.
 */
export function redisAclFile(adminPassword: string, passwords: Readonly<Record<RedisUser, string>>): string {
  const lines = [
    "user default off resetpass resetkeys resetchannels -@all",
    `user admin on #${sha256(adminPassword)} ~* &* +@all`,
    ...REDIS_USERS.map(
      (name) => `user ${name} on #${sha256(passwords[name])} ${redisAclRules(REDIS_ACL[name]).join(" ")}`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
