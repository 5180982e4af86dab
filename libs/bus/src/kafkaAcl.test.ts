import { TOPICS } from "@platform/proto/topics";
import { describe, expect, it } from "vitest";
import { toAclEntry } from "./applyKafkaAcls.js";
import {
  aclBindings,
  chainIngestorGrants,
  INGESTOR_TRANSACTIONAL_ID_PREFIXES,
  ingestorTransactionalId,
  KAFKA_GRANTS,
  KAFKA_SERVICES,
  type KafkaService,
  platformAclBindings,
  projectorGrants,
} from "./kafkaAcl.js";

describe("the Kafka ACL table", () => {
  it("grants each service exactly the topics it writes and reads", () => {
    const brief = Object.fromEntries(
      KAFKA_SERVICES.map((service) => {
        const grant = KAFKA_GRANTS[service];
        return [service, { produces: [...grant.produces].sort(), consumes: [...grant.consumes].sort() }];
      }),
    );
    expect(brief).toEqual({
      auth: {
        produces: [TOPICS.authApiKeys.name, TOPICS.authRefreshTokens.name],
        consumes: [TOPICS.authApiKeys.name, TOPICS.authRefreshTokens.name],
      },
      tc: { produces: [TOPICS.tcAcceptances.name], consumes: [TOPICS.tcAcceptances.name] },
      "intents-gateway": { produces: [TOPICS.intentsNotifications.name], consumes: [] },
      projector: {
        produces: [],
        consumes: [
          TOPICS.chainIntents.name,
          TOPICS.chainNetwork.name,
          TOPICS.intentsNotifications.name,
          TOPICS.oraclePrices.name,
        ],
      },
      "chain-ingestor": {
        produces: [
          TOPICS.chainIntents.name,
          TOPICS.chainNetwork.name,
          TOPICS.ingestorCheckpoints.name,
          TOPICS.intentsNotifications.name,
          TOPICS.oraclePrices.name,
        ],
        consumes: [TOPICS.ingestorCheckpoints.name],
      },
      topics: { produces: [], consumes: [] },
    });
  });

  it("lets no service create a topic or change its configs: only the topics step, which reads and writes no record", () => {
    for (const service of KAFKA_SERVICES.filter((name) => name !== "topics"))
      expect(
        aclBindings(service, KAFKA_GRANTS[service]).filter((binding) =>
          ["CREATE", "ALTER_CONFIGS", "DESCRIBE_CONFIGS"].includes(binding.operation),
        ),
        service,
      ).toEqual([]);
    const step = KAFKA_GRANTS.topics;
    expect([...step.owns].sort()).toEqual(
      Object.values(TOPICS)
        .map((topic) => topic.name)
        .sort(),
    );
    expect([step.consumes, step.produces, step.groups, step.transactionalIdPrefixes]).toEqual([[], [], [], []]);
    expect(new Set(aclBindings("topics", step).map((binding) => binding.operation))).toEqual(
      new Set(["DESCRIBE", "CREATE", "ALTER_CONFIGS"]),
    );
  });

  it("names every group and transactional id after its service, and grants nothing on the cluster or by wildcard", () => {
    const bindings = platformAclBindings();
    for (const binding of bindings) {
      const service = binding.principal.replace(/^User:/, "") as KafkaService;
      expect(KAFKA_SERVICES).toContain(service);
      expect(binding.resourceName).not.toMatch(/^\*?$/);
      expect(["TOPIC", "GROUP", "TRANSACTIONAL_ID"]).toContain(binding.resourceType);
      if (binding.resourceType !== "TOPIC")
        expect(binding.resourceName.startsWith(`${service}-`), binding.resourceName).toBe(true);
      if (binding.patternType === "PREFIXED") expect(binding.resourceName).toMatch(/-$/);
    }
    expect(bindings.filter((binding) => binding.resourceType === "TRANSACTIONAL_ID").map((b) => b.principal)).toEqual(
      Object.keys(chainIngestorGrants).map(() => "User:chain-ingestor"),
    );
  });

  it("gives each projection its own group and only its own topics", () => {
    expect(projectorGrants.market.consumes).toEqual([TOPICS.chainNetwork.name, TOPICS.oraclePrices.name]);
    expect(projectorGrants.market.groups).toEqual(["projector-market"]);
    expect(aclBindings("projector-market", projectorGrants.market)).toEqual(
      expect.arrayContaining([
        {
          principal: "User:projector-market",
          resourceType: "GROUP",
          resourceName: "projector-market",
          patternType: "LITERAL",
          operation: "READ",
        },
      ]),
    );
    expect(
      aclBindings("projector-market", projectorGrants.market).some(
        (binding) => binding.operation === "WRITE" || binding.operation === "ALTER_CONFIGS",
      ),
    ).toBe(false);
  });

  it("gives each ingestor source a transactional-id prefix that covers none of the other sources' ids", () => {
    const sources = Object.keys(chainIngestorGrants) as (keyof typeof chainIngestorGrants)[];
    for (const source of sources) {
      const [prefix] = chainIngestorGrants[source].transactionalIdPrefixes;
      expect(prefix, source).toBe(INGESTOR_TRANSACTIONAL_ID_PREFIXES[source]);
      expect(ingestorTransactionalId(source, "origin").startsWith(prefix!)).toBe(true);
      for (const other of sources.filter((candidate) => candidate !== source))
        expect(ingestorTransactionalId(other, "origin").startsWith(prefix!), `${source} covers ${other}`).toBe(false);
    }
    expect(ingestorTransactionalId("intents", "origin")).toBe("chain-ingestor-intents-origin");
  });

  it("turns a binding into the kafkajs ACL entry: ALLOW from any host", () => {
    expect(
      toAclEntry({
        principal: "User:chain-ingestor",
        resourceType: "TRANSACTIONAL_ID",
        resourceName: "chain-ingestor-",
        patternType: "PREFIXED",
        operation: "WRITE",
      }),
    ).toEqual({
      principal: "User:chain-ingestor",
      host: "*",
      resourceType: 5,
      resourceName: "chain-ingestor-",
      resourcePatternType: 4,
      operation: 4,
      permissionType: 3,
    });
  });
});
