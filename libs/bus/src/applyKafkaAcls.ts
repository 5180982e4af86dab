import { TransientError } from "@platform/errors/base";
import kafkajs, { type AclEntry, type Admin } from "kafkajs";
import type { KafkaAclBinding } from "./kafkaAcl.js";

const { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } = kafkajs;

export interface ApplyKafkaAclsOptions {
  /** How long the broker may take to show the new entries; 15 s by default. */
  timeoutMs?: number;
}

/**
 * Creates the ACL entries in one request (the admin must be a super user) and resolves once the
 * broker enforces them: in KRaft the controller commits them and each broker applies them when it
 * replays the metadata log, so a client started right after the request could still be refused.
 */
export async function applyKafkaAcls(
  admin: Admin,
  bindings: readonly KafkaAclBinding[],
  options: ApplyKafkaAclsOptions = {},
): Promise<void> {
  if (bindings.length === 0) return;
  const entries = bindings.map(toAclEntry);
  await admin.createAcls({ acl: entries });
  const wanted = new Set(entries.map(keyOf));
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    const { resources } = await admin.describeAcls({
      resourceType: AclResourceTypes.ANY,
      resourcePatternType: ResourcePatternTypes.ANY,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    });
    const present = new Set(
      resources.flatMap((resource) => resource.acls.map((acl) => keyOf({ ...resource, ...acl }))),
    );
    const missing = [...wanted].filter((key) => !present.has(key));
    if (missing.length === 0) return;
    if (Date.now() > deadline) throw new TransientError(`the broker does not show ${missing.length} ACL entries yet`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function toAclEntry(binding: KafkaAclBinding): AclEntry {
  return {
    principal: binding.principal,
    host: "*",
    resourceType: AclResourceTypes[binding.resourceType],
    resourceName: binding.resourceName,
    resourcePatternType: ResourcePatternTypes[binding.patternType],
    operation: AclOperationTypes[binding.operation],
    permissionType: AclPermissionTypes.ALLOW,
  };
}

function keyOf(entry: AclEntry): string {
  return [
    entry.principal,
    entry.host,
    entry.resourceType,
    entry.resourceName,
    entry.resourcePatternType,
    entry.operation,
    entry.permissionType,
  ].join("|");
}
