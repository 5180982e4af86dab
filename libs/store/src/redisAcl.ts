import { createHash } from "node:crypto";

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

/**
 * The command sets the grants are made of (libs/grants declares who gets which): a writer reads,
 * writes, runs MULTI/EXEC and scripts; a reader reads, with MULTI/EXEC for consistent reads.
 */
export const REDIS_COMMANDS = {
  writer: [...CONNECTION, "+@read", "+@write", "+@transaction", ...SCRIPTS],
  reader: [...CONNECTION, "+@read", "+@transaction"],
  /** Reads and writes with scripts, without MULTI/EXEC (the gateway). */
  scriptedWriter: [...CONNECTION, "+@read", "+@write", ...SCRIPTS],
} as const;

/**
 * Taken away after every grant, so no category brings them back: FLUSHALL, FLUSHDB, KEYS, CONFIG,
 * DEBUG, ACL, SHUTDOWN, MONITOR, CLIENT KILL, SORT, RESTORE, MIGRATE, replication and persistence;
 * FUNCTION (FLUSH, LOAD, DELETE are in @write, and no service uses Redis functions); and what names
 * keys without being bound to a key pattern, so that any user could list every service's keys
 * (`tc:nonce:*`, `auth:fail:addr:<ip>`, `auth:key:*`): SCAN and RANDOMKEY (in @read), and CLIENT
 * TRACKING (in @connection), whose BCAST mode pushes the name of every key anyone writes. No
 * service lists keys or tracks them: a family that must be enumerated keeps an index key (e.g.
 * auth's `auth:keys` set).
 */
const NEVER = ["-@dangerous", "-@admin", "-function", "-scan", "-randomkey", "-client|tracking"];
/**
 * Given back after NEVER: ioredis sends INFO at every connect (its ready check; without it, it
 * warns on the console and goes on), and the scripts read Redis' clock with TIME (@fast only). On
 * a Redis Cluster its client learns the slot map with CLUSTER SLOTS and is ready once CLUSTER INFO
 * says `cluster_state:ok`: read-only questions about the cluster, while every other CLUSTER
 * subcommand (MEET, FAILOVER, RESET, …) stays refused.
 */
const ALWAYS = ["+info", "+time", "+cluster|slots", "+cluster|info"];

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

/** A Redis user: its name, password (in clear, hashed here) and grant. */
export interface RedisUserEntry {
  name: string;
  password: string;
  grant: RedisGrant;
}

/**
 * An ACL file for redis-server (`aclfile`): the `default` user off (a connection without
 * credentials can do nothing), an `admin` user for operators and tests, and each given user with
 * its grant (libs/grants renders the platform's). Passwords are stored as their SHA-256
 * (`#<hex>`), never in clear.
 */
export function redisAclFile(adminPassword: string, users: readonly RedisUserEntry[]): string {
  const lines = [
    "user default off resetpass resetkeys resetchannels -@all",
    `user admin on #${sha256(adminPassword)} ~* &* +@all`,
    ...users.map((user) => `user ${user.name} on #${sha256(user.password)} ${redisAclRules(user.grant).join(" ")}`),
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * A key pattern that matches `key` and nothing else: Redis' glob characters escaped, so a grant
 * names one shared key (a change log) rather than a family.
 */
export function exactKeyPattern(key: string): string {
  return key.replace(/[*?[\]\\]/g, (char) => `\\${char}`);
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
