import { TOPICS } from "@platform/proto/topics";
import { describe, expect, it } from "vitest";
import { topicSpecs } from "./topicSpecs.js";

describe("topicSpecs", () => {
  it("lists every topic of the architecture, facts kept forever, checkpoints compacted", () => {
    const catalog = topicSpecs({ replicationFactor: 3 });
    expect(catalog.map((spec) => spec.name).sort()).toEqual(
      Object.values(TOPICS)
        .map((topic) => topic.name)
        .sort(),
    );
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
    const catalog = topicSpecs({ replicationFactor: 1, partitions: { "chain.network.v1": 12 } });
    expect(catalog.find((spec) => spec.name === "chain.network.v1")?.partitions).toBe(12);
    expect(catalog.every((spec) => spec.configs["min.insync.replicas"] === "1")).toBe(true);
  });

  it("rejects impossible settings", () => {
    expect(() => topicSpecs({ replicationFactor: 0 })).toThrow(RangeError);
    expect(() => topicSpecs({ replicationFactor: 1, minInsyncReplicas: 2 })).toThrow(RangeError);
    expect(() => topicSpecs({ replicationFactor: 1, partitions: { "oracle.prices.v1": 0 } })).toThrow(RangeError);
  });
});
