import postgres from "postgres";
import { historyGrantStatements } from "./historyPrivileges.js";
import { HISTORY_SCHEMA } from "./schema.js";
import { scramVerifier } from "./scramVerifier.js";

/**
 * The history database's roles, each with only the grants its work needs:
 * - `history_owner` owns the schema and runs the migrations (a start-up step or Job, never a service);
 * - `projector` and `data_query` with HISTORY_PRIVILEGES (historyPrivileges.ts): the projectors
 *   read and write the rows, data-query only reads; neither changes the schema.
 */
export const HISTORY_ROLES = ["history_owner", "projector", "data_query"] as const;
export type HistoryRole = (typeof HISTORY_ROLES)[number];

export interface ProvisionOptions {
  /** A superuser's connection URL to the server (any database): credentials included. */
  superuserUrl: string;
  /** The database to create for the history; `platform` by default. */
  database?: string;
  passwords: Record<HistoryRole, string>;
}

/**
 * Creates (or updates) the roles, the database and the schema with their grants, as a superuser:
 * what the local stack and the tests do once per server, and what deploy/k8s's bootstrap SQL does
 * in a cluster. Each password is sent as its SCRAM verifier (scramVerifier.ts), never as itself, so
 * no statement text, server log line or argv holds it.
 */
export async function provisionHistory(options: ProvisionOptions): Promise<void> {
  const database = options.database ?? "platform";
  const server = postgres(options.superuserUrl, { max: 1, onnotice: () => undefined });
  try {
    for (const role of HISTORY_ROLES) {
      const [exists] = await server`select 1 from pg_roles where rolname = ${role}`;
      if (exists === undefined) await server.unsafe(`create role ${role} login`);
      const [statement] =
        await server`select format('alter role %I with login password %L', ${role}::text, ${scramVerifier(options.passwords[role])}::text) as text`;
      await server.unsafe(statement!.text as string);
    }
    const [present] = await server`select 1 from pg_database where datname = ${database}`;
    if (present === undefined) await server.unsafe(`create database ${quoteIdent(database)} owner history_owner`);
    await server.unsafe(`revoke all on database ${quoteIdent(database)} from public`);
    await server.unsafe(`grant connect on database ${quoteIdent(database)} to ${HISTORY_ROLES.join(", ")}`);
  } finally {
    await server.end({ timeout: 5 });
  }
  const url = new URL(options.superuserUrl);
  url.pathname = `/${database}`;
  const db = postgres(url.toString(), { max: 1, onnotice: () => undefined });
  try {
    await db.unsafe(`create schema if not exists ${HISTORY_SCHEMA} authorization history_owner`);
    await db.unsafe("revoke all on schema public from public");
    // Tables and functions the owner creates later (migrations, partitions) carry these grants.
    for (const statement of historyGrantStatements()) await db.unsafe(statement);
  } finally {
    await db.end({ timeout: 5 });
  }
}

const quoteIdent = (name: string): string => {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  return name;
};
