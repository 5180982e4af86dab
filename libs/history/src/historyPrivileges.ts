import { HISTORY_SCHEMA } from "./schema.js";

/** The history roles that connect to read or write rows (the owner runs the migrations). */
export type HistoryClientRole = "projector" | "data_query";

/** What a client role may do with what history_owner creates in the schema. */
export interface HistoryPrivileges {
  tables: readonly ("select" | "insert" | "update" | "delete")[];
  sequences: readonly "usage"[];
  functions: readonly "execute"[];
}

/**
 * Each client role's privileges, as data (libs/grants names the role each principal logs in as):
 * the projectors read and write the rows and may create block partitions through the owner's
 * function, data-query only reads. Neither creates, alters or truncates anything.
 */
export const HISTORY_PRIVILEGES: Readonly<Record<HistoryClientRole, HistoryPrivileges>> = {
  projector: { tables: ["select", "insert", "update", "delete"], sequences: ["usage"], functions: ["execute"] },
  data_query: { tables: ["select"], sequences: [], functions: [] },
};

/**
 * The grants of HISTORY_PRIVILEGES as SQL statements, run as a superuser once the schema exists:
 * usage of the schema, and default privileges on whatever history_owner creates there later
 * (tables, partitions, sequences, functions), so each migration's objects carry them as created.
 * provisionHistory (the local stack, the tests) and deploy/k8s's bootstrap SQL both run these.
 */
export function historyGrantStatements(): string[] {
  const roles = Object.keys(HISTORY_PRIVILEGES) as HistoryClientRole[];
  const statements = [`grant usage on schema ${HISTORY_SCHEMA} to ${roles.join(", ")}`];
  for (const role of roles) {
    const privileges = HISTORY_PRIVILEGES[role];
    for (const [kind, granted] of [
      ["tables", privileges.tables],
      ["sequences", privileges.sequences],
      ["functions", privileges.functions],
    ] as const) {
      if (granted.length === 0) continue;
      statements.push(
        `alter default privileges for role history_owner in schema ${HISTORY_SCHEMA} grant ${granted.join(", ")} on ${kind} to ${role}`,
      );
    }
  }
  return statements;
}
