import {
  DEPLOYABLES,
  INGEST_SOURCES,
  INGRESS_CONTROLLER_NAMESPACE,
  imageOf,
  NAMESPACE,
  REFERENCED_SECRETS,
  UNCONFIGURED_CIDR,
} from "./deployables.js";
import type { Manifest } from "./manifests.js";
import { POSTGRES_PORT, POSTGRES_PRIMARY, POSTGRES_REPLICA, postgresClients } from "./postgres.js";
import { checkRules } from "./rules/checkRules.js";
import type { RuleOptions, RuleProblem } from "./rules/ruleContext.js";
import type { SchemaProblem, StrictSchema } from "./schema.js";

/** The rules as this project applies them. */
export const PROJECT_RULES: RuleOptions = {
  namespace: NAMESPACE,
  singletons: DEPLOYABLES.filter((deployable) => deployable.scaling === "singleton").map(
    (deployable) => deployable.name,
  ),
  // One active instance per ingestor source: its Kafka transactional ids and checkpoints are per source.
  exclusiveWork: [{ image: imageOf("chain-ingestor"), variable: "INGEST_SOURCES", values: [...INGEST_SOURCES] }],
  documentedSecrets: REFERENCED_SECRETS,
  unconfiguredCidrs: [UNCONFIGURED_CIDR],
  monitoringNamespace: "monitoring",
  ingressNamespace: INGRESS_CONTROLLER_NAMESPACE,
  // The history store: only its clients reach PostgreSQL (postgres.ts, postgresClients).
  databases: [
    { workload: POSTGRES_PRIMARY, port: POSTGRES_PORT, clients: postgresClients().primary },
    { workload: POSTGRES_REPLICA, port: POSTGRES_PORT, clients: postgresClients().replica },
  ],
};

export interface ValidationReport {
  schema: SchemaProblem[];
  rules: RuleProblem[];
}

/** Strict schema validation of every object, then the project's rules over the whole set. */
export function validateManifests(
  manifests: Manifest[],
  schema: StrictSchema,
  options: RuleOptions = PROJECT_RULES,
): ValidationReport {
  return { schema: manifests.flatMap((manifest) => schema.validate(manifest)), rules: checkRules(manifests, options) };
}
