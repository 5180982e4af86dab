import { tempDir } from "@platform/testing";
import { describe, expect, it } from "vitest";
import { makeKafkaCredentials, writeKafkaPasswordFiles } from "./kafkaCredentials.js";
import { DEFAULT_PORTS } from "./ports.js";
import { serviceProcessSpecs } from "./serviceProcesses.js";

const infra = {
  kafkaBrokers: ["127.0.0.1:19092"],
  redisUrl: "redis://127.0.0.1:16379",
  natsUrl: "nats://127.0.0.1:14222",
  chainsFile: "/tmp/chains.json",
  secretsDir: "/nonexistent/secrets",
};

describe("the services' topics on the local stack", () => {
  it("are created by the stack's topics step: every Kafka service only waits for them, with no replication or retention to apply", () => {
    const specs = serviceProcessSpecs(DEFAULT_PORTS, { ...infra, kafkaTopicsStep: true }, "info").filter(
      (spec) => spec.env.KAFKA_BROKERS !== undefined,
    );
    expect(specs.map((spec) => spec.name).sort()).toEqual(
      ["auth", "chain-ingestor", "intents-gateway", "projector", "tc"].sort(),
    );
    for (const spec of specs) {
      expect(spec.env.KAFKA_CREATE_TOPICS, spec.name).toBe("false");
      expect(spec.env.KAFKA_REPLICATION_FACTOR, spec.name).toBeUndefined();
      expect(spec.env.CHAIN_TOPICS_RETENTION_MS, spec.name).toBeUndefined();
    }
  });

  it("are created by the services themselves on a bare broker without a topics step (tests, benchmarks)", () => {
    for (const spec of serviceProcessSpecs(DEFAULT_PORTS, infra, "info"))
      if (spec.env.KAFKA_BROKERS !== undefined) {
        expect(spec.env.KAFKA_CREATE_TOPICS, spec.name).toBe("true");
        expect(spec.env.KAFKA_REPLICATION_FACTOR, spec.name).toBe("1");
      }
  });
});

describe("a service started again against a running stack's broker (users and ACLs)", () => {
  it("gets its own Kafka user and creates no topic: the stack's topics step did", () => {
    const dir = tempDir("stack-kafka-secrets");
    try {
      const credentials = makeKafkaCredentials();
      writeKafkaPasswordFiles(dir.path, credentials);
      const specs = serviceProcessSpecs(DEFAULT_PORTS, { ...infra, secretsDir: dir.path }, "info");
      const tc = specs.find((spec) => spec.name === "tc")!;
      expect(tc.env).toMatchObject({ KAFKA_SASL_USERNAME: "tc", KAFKA_CREATE_TOPICS: "false" });
      expect(tc.env.KAFKA_REPLICATION_FACTOR).toBeUndefined();
    } finally {
      dir.remove();
    }
  });
});
