import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NATS_USERS, type NatsUser, natsAuthorization } from "@platform/signals";
import { REDIS_USERS, type RedisUser, redisAclFile } from "@platform/store";

/**
 * Redis and NATS users for the stack, made fresh at every start: one per service with only its
 * grant (libs/store redisAcl.ts, libs/signals natsPermissions.ts) and an `admin` for tests and
 * tools. Laid out like the Kubernetes Secrets that carry them there: `<service>-redis/password`,
 * `<service>-nats/password`, `admin-redis/password`, `admin-nats/password`; the servers' own files
 * beside them (`redis-server/users.acl`, `nats-server/nats.conf`). Owner-only, never logged.
 */
export interface ServerUsers {
  /** The file the server reads its users from. */
  serverFile: string;
  adminPassword: string;
}

export function writeRedisUsers(secretsDir: string): ServerUsers {
  const passwords = passwordsOf(secretsDir, "redis", REDIS_USERS);
  const adminPassword = writePassword(secretsDir, "admin-redis");
  const serverFile = writeSecret(secretsDir, "redis-server", "users.acl", redisAclFile(adminPassword, passwords));
  return { serverFile, adminPassword };
}

export function writeNatsUsers(secretsDir: string): ServerUsers {
  const passwords = passwordsOf(secretsDir, "nats", NATS_USERS);
  const adminPassword = writePassword(secretsDir, "admin-nats");
  const serverFile = writeSecret(secretsDir, "nats-server", "nats.conf", natsAuthorization(adminPassword, passwords));
  return { serverFile, adminPassword };
}

/**
 * The credentials of `service` for the servers its environment names (REDIS_URL, NATS_URL), when
 * the stack made users there: REDIS_USERNAME/REDIS_PASSWORD, NATS_USERNAME/NATS_PASSWORD. Servers
 * given from outside (STACK_REDIS_URL, STACK_NATS_URL) have no files here, and the service
 * connects as those URLs say.
 */
export function serviceCredentialEnv(
  secretsDir: string,
  service: string,
  env: Readonly<Record<string, string>>,
): Record<string, string> {
  const credentials: Record<string, string> = {};
  const redis = join(secretsDir, `${service}-redis`, "password");
  if ((env.REDIS_URL !== undefined || env.REDIS_NODES !== undefined) && existsSync(redis)) {
    credentials.REDIS_USERNAME = service;
    credentials.REDIS_PASSWORD = readFileSync(redis, "utf8");
  }
  const nats = join(secretsDir, `${service}-nats`, "password");
  if (env.NATS_URL !== undefined && existsSync(nats)) {
    credentials.NATS_USERNAME = service;
    credentials.NATS_PASSWORD = readFileSync(nats, "utf8");
  }
  return credentials;
}

/** `url` with a user and password in it (for tools such as redis-cli -u). */
export function withCredentials(url: string, user: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = password;
  return parsed.toString().replace(/\/$/, "");
}

function passwordsOf<Name extends RedisUser | NatsUser>(
  secretsDir: string,
  server: string,
  users: readonly Name[],
): Record<Name, string> {
  return Object.fromEntries(users.map((name) => [name, writePassword(secretsDir, `${name}-${server}`)])) as Record<
    Name,
    string
  >;
}

function writePassword(secretsDir: string, secret: string): string {
  const password = randomBytes(24).toString("base64url");
  writeSecret(secretsDir, secret, "password", password);
  return password;
}

function writeSecret(secretsDir: string, secret: string, file: string, content: string): string {
  mkdirSync(join(secretsDir, secret), { recursive: true, mode: 0o700 });
  const path = join(secretsDir, secret, file);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}
