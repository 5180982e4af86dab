import type { HistoryClientRole } from "@platform/history";
import type { NatsGrant } from "@platform/signals";
import type { RedisGrant } from "@platform/store";

/**
 * Everything one principal (a server user: a service, or one projection of the projector) may
 * touch: its Redis keys and commands, its NATS subjects, the PostgreSQL role it logs in as (whose
 * privileges are libs/history HISTORY_PRIVILEGES). A principal without a part has no user there.
 */
export interface Grant {
  redis?: RedisGrant;
  nats?: NatsGrant;
  postgres?: HistoryClientRole;
}

/**
 * The union of grants: one process doing the work of several principals (the local stack's
 * projector runs every projection). Selectors are kept as they are. A process logs in to
 * PostgreSQL as one role: grants that name different roles give it none (every projection's is
 * `projector`).
 */
export function unionGrant(grants: readonly Grant[]): Grant {
  const union = (pick: (grant: Grant) => readonly string[] | undefined) => [
    ...new Set(grants.flatMap((grant) => pick(grant) ?? [])),
  ];
  const redis = grants.some((grant) => grant.redis !== undefined);
  const nats = grants.some((grant) => grant.nats !== undefined);
  const roles = [...new Set(grants.flatMap((grant) => (grant.postgres === undefined ? [] : [grant.postgres])))];
  const selectors = union((grant) => grant.redis?.selectors);
  return {
    ...(redis
      ? {
          redis: {
            readWrite: union((grant) => grant.redis?.readWrite),
            readOnly: union((grant) => grant.redis?.readOnly),
            commands: union((grant) => grant.redis?.commands),
            ...(selectors.length > 0 ? { selectors } : {}),
          },
        }
      : {}),
    ...(nats
      ? { nats: { publish: union((grant) => grant.nats?.publish), subscribe: union((grant) => grant.nats?.subscribe) } }
      : {}),
    ...(roles.length === 1 ? { postgres: roles[0]! } : {}),
  };
}
