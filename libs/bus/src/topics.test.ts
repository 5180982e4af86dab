import { describe, expect, it } from "vitest";
import { topicCatalog, topicNames } from "./topics.js";

describe("topicCatalog", () => {
  it("lists every topic of the architecture, facts kept forever, checkpoints compacted", () => {
    const catalog = topicCatalog({ replicationFactor: 3 });
    expect(catalog.map((spec) => spec.name).sort()).toEqual(Object.values(topicNames).sort());
    const intents = catalog.find((spec) => spec.name === "chain.intents.v1");
    expect(intents).toMatchObject({
      partitions: 6,
      replicationFactor: 3,
      configs: {
        "cleanup.policy": "delete",
        "retention.ms": "-1",
        "retention.bytes": "-1",
        "min.insync.replicas": "2",
      },
    });
    const checkpoints = catalog.find((spec) => spec.name === "ingestor.checkpoints.v1");
    expect(checkpoints?.configs["cleanup.policy"]).toBe("compact");
    expect(checkpoints?.configs).not.toHaveProperty("retention.ms");
  });

  it("takes partition counts and min.insync.replicas from the options", () => {
    const catalog = topicCatalog({ replicationFactor: 1, partitions: { "chain.network.v1": 12 } });
    expect(catalog.find((spec) => spec.name === "chain.network.v1")?.partitions).toBe(12);
    expect(catalog.every((spec) => spec.configs["min.insync.replicas"] === "1")).toBe(true);
  });

  it("rejects impossible settings", () => {
    expect(() => topicCatalog({ replicationFactor: 0 })).toThrow(RangeError);
    expect(() => topicCatalog({ replicationFactor: 1, minInsyncReplicas: 2 })).toThrow(RangeError);
    expect(() => topicCatalog({ replicationFactor: 1, partitions: { "oracle.prices.v1": 0 } })).toThrow(RangeError);
  });
});
