import { TOPICS, type TopicName } from "@platform/proto/topics";

/** Every topic of the catalog (libs/proto topics.ts). */
const ALL_TOPICS = Object.values(TOPICS).map((topic) => topic.name) as TopicName[];

/**
 * Who may do what on Kafka: one principal (SASL/SCRAM user) per service, granted exactly what its
 * code does and nothing else (issue 32, item 7). A change to what a service reads, writes, creates
 * or which group or transactional id it uses must be made here too, or the broker refuses it.
 *
 * Operations Kafka implies are not granted twice: WRITE and READ imply DESCRIBE, ALTER_CONFIGS
 * implies DESCRIBE_CONFIGS. An idempotent producer needs WRITE on some topic (KIP-679), so no
 * cluster-wide IDEMPOTENT_WRITE is granted; no service gets any other cluster operation.
 *
 * No service creates a topic or changes its configs at run time: the platform's topics step (the
 * Kubernetes Job `kafka-topics`, the local stack's topics step; migratePlatformTopics) does, as
 * the principal `topics`, before the services start, and the services wait for their topics.
 */
export interface KafkaGrant {
  /** Consumed (READ): the consumer fetches them and lists their partitions and ends. */
  consumes: readonly TopicName[];
  /** Produced to (WRITE). */
  produces: readonly TopicName[];
  /**
   * Topics whose migration it runs (migrateTopics): listed (DESCRIBE), created when missing and
   * their configs brought to the catalog (CREATE, ALTER_CONFIGS). Only the topics step's principal.
   */
  owns: readonly TopicName[];
  /** Consumer groups it joins (READ on the group). */
  groups: readonly string[];
  /** Prefixes of throw-away groups it joins and deletes afterwards (READ, DELETE). */
  groupPrefixes: readonly string[];
  /** Prefixes of its transactional ids (WRITE, which implies DESCRIBE). */
  transactionalIdPrefixes: readonly string[];
}

const none: KafkaGrant = {
  consumes: [],
  produces: [],
  owns: [],
  groups: [],
  groupPrefixes: [],
  transactionalIdPrefixes: [],
};

/** The projector's projections (PROJECTIONS), each its own consumer group and topics read. */
export const projectorGrants = {
  intents: projection("projector-intents", [TOPICS.chainIntents.name, TOPICS.intentsNotifications.name]),
  accounts: projection("projector-accounts", [TOPICS.chainNetwork.name]),
  market: projection("projector-market", [TOPICS.chainNetwork.name, TOPICS.oraclePrices.name]),
  subnets: projection("projector-subnets", [TOPICS.chainNetwork.name]),
} as const satisfies Record<string, KafkaGrant>;

/**
 * The transactional-id prefix of each chain-ingestor source: its ids are the prefix and the name
 * of the chain or network it follows (`chain-ingestor-intents-origin`). No prefix is the start of
 * another, so a source's grant on its prefix takes no other source's id (which would let it fence
 * that source off).
 */
export const INGESTOR_TRANSACTIONAL_ID_PREFIXES = {
  intents: "chain-ingestor-intents-",
  native: "chain-ingestor-native-",
  price: "chain-ingestor-price-",
} as const;
export type IngestorSourceName = keyof typeof INGESTOR_TRANSACTIONAL_ID_PREFIXES;

/** The transactional id of `source` following the chain or network `name`. */
export function ingestorTransactionalId(source: IngestorSourceName, name: string): string {
  return `${INGESTOR_TRANSACTIONAL_ID_PREFIXES[source]}${name}`;
}

/**
 * The chain-ingestor's sources (INGEST_SOURCES). Each writes its records and its checkpoints in
 * Kafka transactions under its own transactional-id prefix, and reads the checkpoints back at
 * start through a throw-away group.
 */
export const chainIngestorGrants = {
  intents: ingestorSource("intents", [TOPICS.chainIntents.name, TOPICS.intentsNotifications.name]),
  native: ingestorSource("native", [TOPICS.chainNetwork.name]),
  // Its rounds and their removals both travel on oracle.prices.v1: no write on chain.network.v1.
  price: ingestorSource("price", [TOPICS.oraclePrices.name]),
} as const satisfies Record<IngestorSourceName, KafkaGrant>;

/** Every service that talks to Kafka, with its whole grant; gateway and data-query have none. */
export const KAFKA_GRANTS = {
  // Writes the key and token events and projects them into its registry (group auth-registry).
  auth: ownProjection("auth-registry", [TOPICS.authApiKeys.name, TOPICS.authRefreshTokens.name]),
  // Writes acceptances and projects them (group tc-acceptances).
  tc: ownProjection("tc-acceptances", [TOPICS.tcAcceptances.name]),
  // Writes wallet notifications (a notified transaction); reads nothing from Kafka.
  "intents-gateway": {
    ...none,
    produces: [TOPICS.intentsNotifications.name],
  },
  projector: mergeGrants(Object.values(projectorGrants)),
  "chain-ingestor": mergeGrants(Object.values(chainIngestorGrants)),
  // The topics step (Job kafka-topics; the local stack's step): creates every catalog topic and
  // brings its configs to the catalog; reads and writes no record.
  topics: { ...none, owns: ALL_TOPICS },
} as const satisfies Record<string, KafkaGrant>;

export type KafkaService = keyof typeof KAFKA_GRANTS;
export const KAFKA_SERVICES = Object.keys(KAFKA_GRANTS) as KafkaService[];

function ownProjection(group: string, topics: readonly TopicName[]): KafkaGrant {
  return { ...none, consumes: topics, produces: topics, groups: [group] };
}

function projection(group: string, topics: readonly TopicName[]): KafkaGrant {
  return { ...none, consumes: topics, groups: [group] };
}

function ingestorSource(source: IngestorSourceName, topics: readonly TopicName[]): KafkaGrant {
  const written = [...topics, TOPICS.ingestorCheckpoints.name];
  return {
    ...none,
    consumes: [TOPICS.ingestorCheckpoints.name],
    produces: written,
    groupPrefixes: ["chain-ingestor-checkpoint-reader-"],
    transactionalIdPrefixes: [INGESTOR_TRANSACTIONAL_ID_PREFIXES[source]],
  };
}

/** The union of grants (a process running several projections or sources). */
export function mergeGrants(grants: readonly KafkaGrant[]): KafkaGrant {
  const union = <T>(pick: (grant: KafkaGrant) => readonly T[]) => [...new Set(grants.flatMap(pick))].sort();
  return {
    consumes: union((grant) => grant.consumes),
    produces: union((grant) => grant.produces),
    owns: union((grant) => grant.owns),
    groups: union((grant) => grant.groups),
    groupPrefixes: union((grant) => grant.groupPrefixes),
    transactionalIdPrefixes: union((grant) => grant.transactionalIdPrefixes),
  };
}

/** One ACL entry, as plain data; `principal` is `User:<name>`. Always ALLOW, from any host. */
export interface KafkaAclBinding {
  principal: string;
  resourceType: "TOPIC" | "GROUP" | "TRANSACTIONAL_ID";
  resourceName: string;
  patternType: "LITERAL" | "PREFIXED";
  operation: "READ" | "WRITE" | "CREATE" | "DELETE" | "DESCRIBE" | "DESCRIBE_CONFIGS" | "ALTER_CONFIGS";
}

/** The ACL entries that grant `username` exactly `grant`. */
export function aclBindings(username: string, grant: KafkaGrant): KafkaAclBinding[] {
  const principal = `User:${username}`;
  const bindings: KafkaAclBinding[] = [];
  const add = (
    resourceType: KafkaAclBinding["resourceType"],
    names: readonly string[],
    operations: readonly KafkaAclBinding["operation"][],
    patternType: KafkaAclBinding["patternType"] = "LITERAL",
  ) => {
    for (const resourceName of names)
      for (const operation of operations)
        bindings.push({ principal, resourceType, resourceName, patternType, operation });
  };
  add("TOPIC", grant.consumes, ["READ"]);
  add("TOPIC", grant.produces, ["WRITE"]);
  // DESCRIBE: the migration lists the topics, which CREATE does not imply.
  add("TOPIC", grant.owns, ["DESCRIBE", "CREATE", "ALTER_CONFIGS"]);
  add("GROUP", grant.groups, ["READ"]);
  add("GROUP", grant.groupPrefixes, ["READ", "DELETE"], "PREFIXED");
  add("TRANSACTIONAL_ID", grant.transactionalIdPrefixes, ["WRITE"], "PREFIXED");
  return bindings;
}

/** The ACL entries of every service, each under its own username (the service's name by default). */
export function platformAclBindings(usernameOf: (service: KafkaService) => string = (service) => service) {
  return KAFKA_SERVICES.flatMap((service) => aclBindings(usernameOf(service), KAFKA_GRANTS[service]));
}
