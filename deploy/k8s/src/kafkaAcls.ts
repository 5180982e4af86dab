import {
  aclBindings,
  chainIngestorGrants,
  KAFKA_GRANTS,
  type KafkaAclBinding,
  type KafkaGrant,
  type KafkaService,
  projectorGrants,
} from "@platform/bus";
import type { Deployable } from "./deployable.js";
import { DEPLOYABLES } from "./deployables.js";

/**
 * What a deployable's Kafka user may do: its service's grant (libs/bus kafkaAcl.ts), narrowed to
 * its projection or ingestor source where the service is split over several Deployments.
 */
export function kafkaGrantOf(deployable: Deployable): KafkaGrant | undefined {
  if (!deployable.uses.kafka) return undefined;
  if (deployable.service === "projector")
    return projectorGrants[deployable.env.PROJECTIONS as keyof typeof projectorGrants];
  if (deployable.service === "chain-ingestor")
    return chainIngestorGrants[deployable.env.INGEST_SOURCES as keyof typeof chainIngestorGrants];
  return KAFKA_GRANTS[deployable.service as KafkaService];
}

const OPERATION_FLAGS: Record<KafkaAclBinding["operation"], string> = {
  READ: "Read",
  WRITE: "Write",
  CREATE: "Create",
  DELETE: "Delete",
  DESCRIBE: "Describe",
  DESCRIBE_CONFIGS: "DescribeConfigs",
  ALTER_CONFIGS: "AlterConfigs",
};

const RESOURCE_FLAGS: Record<KafkaAclBinding["resourceType"], string> = {
  TOPIC: "--topic",
  GROUP: "--group",
  TRANSACTIONAL_ID: "--transactional-id",
};

/**
 * `kafka-acls.sh` commands that grant every Kafka-using Deployment its ACLs, one command per
 * resource, for an operator to run as a super user (`pnpm --filter @platform/k8s kafka-acls`).
 * `usernameOf` names each Deployment's user as its Secret `kafka-<deployable>` does.
 */
export function kafkaAclCommands(
  usernameOf: (deployable: Deployable) => string = (deployable) => deployable.name,
): string[] {
  const principals: Array<[string, KafkaGrant]> = [];
  for (const deployable of DEPLOYABLES) {
    const grant = kafkaGrantOf(deployable);
    if (grant !== undefined) principals.push([usernameOf(deployable), grant]);
  }
  // The topics Job (kafkaTopicsJob.ts): the only principal that creates topics or changes their configs.
  principals.push(["topics", KAFKA_GRANTS.topics]);
  return principals.flatMap(([username, grant]) => commandsOf(aclBindings(username, grant)));
}

/** One kafka-acls.sh command per resource of the bindings. */
function commandsOf(bindings: readonly KafkaAclBinding[]): string[] {
  const byResource = new Map<string, KafkaAclBinding[]>();
  for (const binding of bindings) {
    const key = `${binding.principal} ${binding.resourceType} ${binding.patternType} ${binding.resourceName}`;
    byResource.set(key, [...(byResource.get(key) ?? []), binding]);
  }
  return [...byResource.values()].map((grouped) => {
    const { principal, resourceType, resourceName, patternType } = grouped[0]!;
    return [
      'kafka-acls.sh --bootstrap-server "$KAFKA_BOOTSTRAP" --command-config "$KAFKA_ADMIN_CONFIG" --add',
      `--allow-principal ${principal}`,
      ...grouped.map((binding) => `--operation ${OPERATION_FLAGS[binding.operation]}`),
      `${RESOURCE_FLAGS[resourceType]} ${resourceName}`,
      ...(patternType === "PREFIXED" ? ["--resource-pattern-type prefixed"] : []),
    ].join(" ");
  });
}
