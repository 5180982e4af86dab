import { PROJECTION_NAMES, type ProjectionName, projectionKeySpaces } from "@platform/read-models";
import { subjects } from "@platform/signals";
import { exactKeyPattern, REDIS_COMMANDS } from "@platform/store";
import { type Grant, unionGrant } from "./grant.js";

/**
 * The projector's principals, one per projection (`projector-<projection>`, one Deployment each in
 * Kubernetes): in Redis its own key prefix and, key by key, what it shares with other projections
 * (libs/read-models keySpaces.ts: the data change log); on NATS only its own change signal; in
 * PostgreSQL the `projector` role.
 */
export function projectionGrant(projection: ProjectionName): Grant {
  const space = projectionKeySpaces[projection];
  return {
    redis: {
      readWrite: [`${space.prefix}*`, ...space.shared.map(exactKeyPattern)],
      readOnly: [],
      commands: REDIS_COMMANDS.writer,
    },
    nats: { publish: [subjects.readModelChanged(projection)], subscribe: [] },
    postgres: "projector",
  };
}

export type ProjectionPrincipal = `projector-${ProjectionName}`;
export const projectionPrincipal = (projection: ProjectionName): ProjectionPrincipal => `projector-${projection}`;

/**
 * Every principal's grant: one declaration of what it may touch, from which the Redis ACL users,
 * the NATS users and the PostgreSQL role each connects as are all rendered (serverUsers.ts). A
 * change to the keys a service writes, the subjects it signals on or the role it reads as is made
 * here, or the server refuses it. Key families are documented with their owners (the services'
 * keys.ts modules, libs/read-models).
 *
 * - Only auth writes `auth:*`; only the projections write `rm:*`, each its own part; tc,
 *   intents-gateway and the gateway each write their own prefix.
 * - Redis checks a script's keys as written to (EVAL/EVALSHA declare their keys RW, whatever the
 *   script does), and again checks each command the script runs. The gateway's rate-limit script
 *   takes `auth:key:{id}` (read) and `rl:{id}:…` (written) together, for one round trip and one
 *   Cluster slot: a selector lets EVAL/EVALSHA name both, while inside the script HMGET on the key
 *   passes the root rules (read-only there) and HSET or DEL on it would not.
 * - No service makes NATS requests (no `_INBOX.>`) or uses JetStream's API (`$JS.API.>`): signals
 *   are plain core NATS messages.
 */
const TABLE = {
  // The key registry, refresh tokens, lockout and grant counters, its offsets and marker.
  auth: { redis: { readWrite: ["auth:*"], readOnly: [], commands: REDIS_COMMANDS.writer } },
  // Acceptances (its projection), nonces.
  tc: { redis: { readWrite: ["tc:*"], readOnly: [], commands: REDIS_COMMANDS.writer } },
  // Its quotes and notification claims; reads the intents read model and follows its change log.
  // Publishes a notified transaction's hint; wakes its change-log reader on the intents signal.
  "intents-gateway": {
    redis: { readWrite: ["intents-gateway:*"], readOnly: ["rm:{intents}:*"], commands: REDIS_COMMANDS.writer },
    nats: { publish: [subjects.intentsNotified], subscribe: [subjects.readModelChanged("intents")] },
  },
  // Reads the data read models (accounts, market, subnets: one hash tag, libs/read-models
  // hashTags.ts) and follows `rm:{data}:changes`; MULTI/EXEC for consistent reads. The events group
  // wakes its data change-log reader on every signal. History from PostgreSQL, read-only.
  "data-query": {
    redis: { readWrite: [], readOnly: ["rm:{data}:*"], commands: REDIS_COMMANDS.reader },
    nats: { publish: [], subscribe: [subjects.readModelChanged("*")] },
    postgres: "data_query",
  },
  // Rate-limit budgets and event-stream leases; reads auth's key records (revocation) and its
  // marker. Conditional Data API reads: every projection's signal.
  gateway: {
    redis: {
      readWrite: ["rl:*", "sse:*"],
      readOnly: ["auth:key:*", "auth:registry"],
      commands: REDIS_COMMANDS.scriptedWriter,
      selectors: ["(+evalsha +eval ~auth:key:* ~rl:*)"],
    },
    nats: { publish: [], subscribe: [subjects.readModelChanged("*")] },
  },
  // The intents source looks a notified transaction's receipt up at once.
  "chain-ingestor": { nats: { publish: [], subscribe: [subjects.intentsNotified] } },
  "projector-intents": projectionGrant("intents"),
  "projector-accounts": projectionGrant("accounts"),
  "projector-market": projectionGrant("market"),
  "projector-subnets": projectionGrant("subnets"),
} as const satisfies Record<string, Grant>;

export type Principal = keyof typeof TABLE;
export const PRINCIPALS: Readonly<Record<Principal, Grant>> = TABLE;
export const PRINCIPAL_NAMES = Object.keys(PRINCIPALS) as Principal[];

/**
 * The principals of the local stack, which runs every projection in one projector process: that
 * process is one user, `projector`, granted the union of the four projections' grants; the other
 * services as everywhere. In Kubernetes each projection's Deployment is its own principal.
 */
export const LOCAL_PRINCIPALS: Readonly<Record<string, Grant>> = {
  ...Object.fromEntries(
    PRINCIPAL_NAMES.filter((name) => !name.startsWith("projector-")).map((name) => [name, PRINCIPALS[name]]),
  ),
  projector: unionGrant(PROJECTION_NAMES.map((projection) => PRINCIPALS[projectionPrincipal(projection)])),
};
