import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LOCAL_PRINCIPALS, natsUsersOf, principalsOn, redisUsersOf } from "@platform/grants";
import { HISTORY_ROLES, type HistoryRole } from "@platform/history";
import { natsAuthorization } from "@platform/signals";
import { redisAclFile } from "@platform/store";

/**
 * Redis and NATS users for the stack, made fresh at every start: one per service with only its
 * grant (libs/grants LOCAL_PRINCIPALS) and an `admin` for tests and tools. The stack runs every
 * projection in one projector process, so its `projector` user has the union of the projections'
 * grants (in Kubernetes each projection's Deployment has a user of its own). Laid out like the Kubernetes Secrets that carry them there: `<service>-redis/password`,
 * `<service>-nats/password`, `admin-redis/password`, `admin-nats/password`; the servers' own files
 * beside them (`redis-server/users.acl`, `nats-server/nats.conf`). Owner-only, never logged.
 */
export interface ServerUsers {
  /** The file the server reads its users from. */
  serverFile: string;
  adminPassword: string;
}

export function writeRedisUsers(secretsDir: string): ServerUsers {
  const passwords = passwordsOf(secretsDir, "redis", principalsOn(LOCAL_PRINCIPALS, "redis"));
  const adminPassword = writePassword(secretsDir, "admin-redis");
  const users = redisUsersOf(LOCAL_PRINCIPALS, (name) => passwords[name]!);
  const serverFile = writeSecret(secretsDir, "redis-server", "users.acl", redisAclFile(adminPassword, users));
  return { serverFile, adminPassword };
}

export function writeNatsUsers(secretsDir: string): ServerUsers {
  const passwords = passwordsOf(secretsDir, "nats", principalsOn(LOCAL_PRINCIPALS, "nats"));
  const adminPassword = writePassword(secretsDir, "admin-nats");
  const users = natsUsersOf(LOCAL_PRINCIPALS, (name) => passwords[name]!);
  const serverFile = writeSecret(secretsDir, "nats-server", "nats.conf", natsAuthorization(adminPassword, users));
  return { serverFile, adminPassword };
}

/**
 * The history database's users (libs/history provisionHistory): the superuser `postgres` and a role
 * per use, each with only its grants. Laid out like the Kubernetes Secrets that carry them there:
 * `admin-postgres/password` (the superuser), `history-owner-postgres/password` (the migrations),
 * `projector-postgres/password`, `data-query-postgres/password`; beside them
 * `postgres-client/pgpass`, a PGPASSFILE with every one of them for psql. Owner-only, never logged.
 */
export interface PostgresUsers {
  /** The superuser `postgres`'s, on a server the stack starts (an external one comes with its own). */
  superuserPassword?: string;
  passwords: Record<HistoryRole, string>;
  /** The PGPASSFILE (`host:port:database:user:password` lines), written by `writePgpass`. */
  pgpassFile: string;
}

/** The service each history role belongs to (its secret's folder is `<service>-postgres`). */
const POSTGRES_SECRET_OF: Record<HistoryRole, string> = {
  history_owner: "history-owner",
  projector: "projector",
  data_query: "data-query",
};

export function writePostgresUsers(secretsDir: string, withSuperuser: boolean): PostgresUsers {
  const superuserPassword = withSuperuser ? writePassword(secretsDir, "admin-postgres") : undefined;
  const passwords = Object.fromEntries(
    HISTORY_ROLES.map((role) => [role, writePassword(secretsDir, `${POSTGRES_SECRET_OF[role]}-postgres`)]),
  ) as Record<HistoryRole, string>;
  return {
    ...(superuserPassword === undefined ? {} : { superuserPassword }),
    passwords,
    pgpassFile: join(secretsDir, "postgres-client", "pgpass"),
  };
}

/**
 * The PGPASSFILE for `psql` on the server at `url` (any database): a line per role and the
 * superuser, so `PGPASSFILE=<file> psql 'postgres://data_query@host:port/platform'` asks nothing.
 */
export function writePgpass(secretsDir: string, users: PostgresUsers, url: string): string {
  const { hostname, port } = new URL(url);
  // pgpass escapes ':' and a backslash with a backslash; the generated passwords (base64url) have neither.
  const field = (value: string) => value.replace(/[\\:]/g, (char) => `\\${char}`);
  const lines = [
    ...(users.superuserPassword === undefined ? [] : [["postgres", users.superuserPassword] as const]),
    ...HISTORY_ROLES.map((role) => [role, users.passwords[role]] as const),
  ].map(([user, password]) => `${field(hostname)}:${port || "5432"}:*:${user}:${field(password)}`);
  return writeSecret(secretsDir, "postgres-client", "pgpass", `${lines.join("\n")}\n`);
}

/**
 * The credentials of `service` for the servers its environment names (REDIS_URL, NATS_URL,
 * POSTGRES_URL), when the stack made users there: REDIS_USERNAME/REDIS_PASSWORD,
 * NATS_USERNAME/NATS_PASSWORD, POSTGRES_USERNAME/POSTGRES_PASSWORD (the history role of the
 * projector or data-query). Servers given from outside (STACK_REDIS_URL, STACK_NATS_URL) have no
 * files here, and the service connects as those URLs say.
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
  const role = (Object.keys(POSTGRES_SECRET_OF) as HistoryRole[]).find((name) => POSTGRES_SECRET_OF[name] === service);
  const postgres = join(secretsDir, `${service}-postgres`, "password");
  if (env.POSTGRES_URL !== undefined && role !== undefined && existsSync(postgres)) {
    credentials.POSTGRES_USERNAME = role;
    credentials.POSTGRES_PASSWORD = readFileSync(postgres, "utf8");
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

function passwordsOf(secretsDir: string, server: string, users: readonly string[]): Record<string, string> {
  return Object.fromEntries(users.map((name) => [name, writePassword(secretsDir, `${name}-${server}`)]));
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
