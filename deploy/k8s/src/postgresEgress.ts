import type { V1NetworkPolicyPeer } from "@kubernetes/client-node";
import type { Deployable } from "./deployable.js";

/*
 * What a client deployable needs to know of PostgreSQL to reach it: the servers' names, the port,
 * and the egress rule its NetworkPolicy carries. Apart from postgres.ts (the servers' manifests),
 * which imports manifests.ts, so that manifests.ts can import this without a cycle.
 */

export const POSTGRES_PORT = 5432;
export const POSTGRES_PRIMARY = "postgres-primary";
export const POSTGRES_REPLICA = "postgres-replica";
export const NAME_LABEL = "app.kubernetes.io/name";

export const podsNamed = (names: string[]): V1NetworkPolicyPeer => ({
  podSelector: { matchExpressions: [{ key: NAME_LABEL, operator: "In", values: [...names].sort() }] },
});

export const toPostgres = (servers: string[]) => ({
  to: [podsNamed(servers)],
  ports: [{ protocol: "TCP", port: POSTGRES_PORT }],
});

/** The egress rule a deployable that uses Postgres adds to its own NetworkPolicy. */
export function postgresEgressOf(deployable: Deployable) {
  if (!deployable.uses.postgres) return undefined;
  return toPostgres(
    deployable.uses.postgres === "data_query" ? [POSTGRES_PRIMARY, POSTGRES_REPLICA] : [POSTGRES_PRIMARY],
  );
}
