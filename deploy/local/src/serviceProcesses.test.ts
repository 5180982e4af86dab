import { describe, expect, it } from "vitest";
import { DEFAULT_PORTS } from "./ports.js";
import { serviceProcessSpecs } from "./serviceProcesses.js";

const infra = {
  kafkaBrokers: ["127.0.0.1:19092"],
  redisUrl: "redis://127.0.0.1:16379",
  natsUrl: "nats://127.0.0.1:14222",
  chainsFile: "/tmp/chains.json",
  secretsDir: "/nonexistent/secrets",
};

const retentionOf = (specs: ReturnType<typeof serviceProcessSpecs>) =>
  Object.fromEntries(
    specs
      .filter((spec) => spec.env.CHAIN_TOPICS_RETENTION_MS !== undefined)
      .map((spec) => [spec.name, spec.env.CHAIN_TOPICS_RETENTION_MS]),
  );

describe("the chain topics' retention on the local stack", () => {
  it("goes to the services that create the chain topics, 7 days unless the stack says otherwise", () => {
    expect(retentionOf(serviceProcessSpecs(DEFAULT_PORTS, infra, "info"))).toEqual({
      projector: "604800000",
      "chain-ingestor": "604800000",
    });
    expect(
      retentionOf(serviceProcessSpecs(DEFAULT_PORTS, { ...infra, chainTopicsRetentionMs: 3_600_000 }, "info")),
    ).toEqual({ projector: "3600000", "chain-ingestor": "3600000" });
  });
});
