import type { Deployable, EnvValue, PostgresClientRole } from "./deployable.js";

/**
 * The history store's login roles (PostgreSQL, issue 41), each with a Secret of its own (key
 * `password`), which operators create in the cluster with the role's password (README,
 * "PostgreSQL"); the bootstrap SQL (postgres.ts) reads them from there. The role names are fixed,
 * so POSTGRES_USERNAME is a literal, as REDIS_USERNAME is (serverCredentials.ts).
 */
export const POSTGRES_ROLES = {
  /** Owns the history schema and runs its migrations (the Job history-migrate). */
  history_owner: { secret: "postgres-history-owner" },
  /** The projectors: SELECT, INSERT, UPDATE, DELETE on the schema's tables, USAGE on its sequences. */
  projector: { secret: "postgres-projector" },
  /** data-query: SELECT only, read-only transactions. */
  data_query: { secret: "postgres-data-query" },
  /** REPLICATION LOGIN: the streaming replica and the base backups. */
  replicator: { secret: "postgres-replicator" },
} as const;
export type PostgresRole = keyof typeof POSTGRES_ROLES;
/** The roles a deployable connects as (the others are the migration Job's and replication's). */
export type { PostgresClientRole };
/** The superuser's password: POSTGRES_PASSWORD_FILE at initialisation; break-glass afterwards, on the pod's socket only. */
export const POSTGRES_SUPERUSER_SECRET = "postgres-superuser";

/** Every Secret of the PostgreSQL manifests and their clients. */
export const POSTGRES_SECRETS: string[] = [
  ...Object.values(POSTGRES_ROLES).map((role) => role.secret),
  POSTGRES_SUPERUSER_SECRET,
];

/**
 * The ConfigMap key of each client role's URL (no credentials in it): the projectors write to the
 * primary, data-query reads the replica.
 */
export const POSTGRES_URL_KEYS: Record<PostgresClientRole, string> = {
  projector: "POSTGRES_URL",
  data_query: "POSTGRES_READ_URL",
};

/** What a client of the history store reads (the services' config schemas, once the code lands). */
export const POSTGRES_VARIABLES = ["POSTGRES_URL", "POSTGRES_USERNAME", "POSTGRES_PASSWORD"];

/** The variables a deployable that uses Postgres gets: where, as whom, and the password from its role's Secret. */
export function postgresCredentialEnv(deployable: Deployable): Record<string, EnvValue> {
  const role = deployable.uses.postgres;
  if (!role) return {};
  return {
    POSTGRES_URL: { configMapKey: POSTGRES_URL_KEYS[role] },
    POSTGRES_USERNAME: role,
    POSTGRES_PASSWORD: { secretKey: { name: POSTGRES_ROLES[role].secret, key: "password" } },
  };
}

/** The Secrets `postgresCredentialEnv` refers to. */
export function postgresSecretsOf(deployable: Deployable): string[] {
  return deployable.uses.postgres ? [POSTGRES_ROLES[deployable.uses.postgres].secret] : [];
}
