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

  it("keeps the chain topics 7 days by default, and auth's, tc's and the intents topics as before", () => {
    const retention = (catalog: ReturnType<typeof topicSpecs>, name: string) =>
      catalog.find((spec) => spec.name === name)?.configs["retention.ms"];
    const catalog = topicSpecs({ replicationFactor: 3 });
    const sevenDays = String(7 * 24 * 3_600_000);
    expect(retention(catalog, "chain.network.v1")).toBe(sevenDays);
    expect(retention(catalog, "oracle.prices.v1")).toBe(sevenDays);
    for (const name of ["auth.api-keys.v1", "tc.acceptances.v1", "chain.intents.v1", "intents.notifications.v1"]) {
      expect(retention(catalog, name), name).toBe("-1");
    }
    expect(retention(catalog, "auth.refresh-tokens.v1")).toBe(String(31 * 24 * 3_600_000));
    for (const spec of catalog.filter((entry) => entry.configs["cleanup.policy"] === "delete")) {
      expect(spec.configs["retention.bytes"], spec.name).toBe("-1");
    }
  });

  it("honours a configured chain-topic retention on the chain topics only", () => {
    const threeDays = 3 * 24 * 3_600_000;
    const defaults = topicSpecs({ replicationFactor: 1 });
    const configured = topicSpecs({ replicationFactor: 1, chainTopicsRetentionMs: threeDays });
    for (const spec of configured) {
      const expected = ["chain.network.v1", "oracle.prices.v1"].includes(spec.name)
        ? { ...defaults.find((entry) => entry.name === spec.name)!.configs, "retention.ms": String(threeDays) }
        : defaults.find((entry) => entry.name === spec.name)!.configs;
      expect(spec.configs, spec.name).toEqual(expected);
    }
    const forever = topicSpecs({ replicationFactor: 1, chainTopicsRetentionMs: -1 });
    expect(forever.find((spec) => spec.name === "chain.network.v1")?.configs["retention.ms"]).toBe("-1");
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
    for (const chainTopicsRetentionMs of [0, -2, 1.5, Number.NaN]) {
      expect(
        () => topicSpecs({ replicationFactor: 1, chainTopicsRetentionMs }),
        String(chainTopicsRetentionMs),
      ).toThrow(RangeError);
    }
  });
});
