import { describe, expect, it } from "vitest";
import { z } from "zod";
import { chainTopicVars } from "./chainTopicVars.js";

describe("CHAIN_TOPICS_RETENTION_MS", () => {
  const schema = z.object(chainTopicVars);

  it("is 7 days unless set; -1 keeps the chain topics for ever", () => {
    expect(schema.parse({}).CHAIN_TOPICS_RETENTION_MS).toBe(7 * 24 * 3_600_000);
    expect(schema.parse({ CHAIN_TOPICS_RETENTION_MS: "259200000" }).CHAIN_TOPICS_RETENTION_MS).toBe(259_200_000);
    expect(schema.parse({ CHAIN_TOPICS_RETENTION_MS: "-1" }).CHAIN_TOPICS_RETENTION_MS).toBe(-1);
  });

  it("refuses what Kafka would not keep as a retention", () => {
    for (const value of ["0", "-2", "1.5", "7d", ""]) {
      expect(schema.safeParse({ CHAIN_TOPICS_RETENTION_MS: value }).success, value).toBe(false);
    }
  });
});
