import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError, loadConfig } from "./loadConfig.js";
import { vars } from "./vars.js";

const schema = z.object({
  REDIS_URL: vars.url(["redis"]),
  GRPC_PORT: vars.port().default(50051),
  KAFKA_BROKERS: vars.hostPortList(),
  FEATURE: vars.boolean().default(false),
});

function errorOf(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(schema, env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("parses and applies defaults", () => {
    const config = loadConfig(schema, { REDIS_URL: "redis://127.0.0.1:6379", KAFKA_BROKERS: "a:1, b:2" });
    expect(config).toEqual({
      REDIS_URL: "redis://127.0.0.1:6379",
      GRPC_PORT: 50051,
      KAFKA_BROKERS: ["a:1", "b:2"],
      FEATURE: false,
    });
  });

  it("names a missing variable", () => {
    const error = errorOf({ KAFKA_BROKERS: "a:1" });
    expect(error.variable).toBe("REDIS_URL");
    expect(error.message).toBe("REDIS_URL: is required but not set");
  });

  it("treats an empty variable as missing", () => {
    expect(errorOf({ REDIS_URL: " ", KAFKA_BROKERS: "a:1" }).variable).toBe("REDIS_URL");
  });

  it("names a malformed variable and says what was expected", () => {
    const error = errorOf({ REDIS_URL: "redis://x", KAFKA_BROKERS: "a:1", GRPC_PORT: "70000" });
    expect(error.variable).toBe("GRPC_PORT");
    expect(error.message).toMatch(/GRPC_PORT: must be a TCP port/);
    expect(errorOf({ REDIS_URL: "http://x", KAFKA_BROKERS: "a:1" }).message).toMatch(
      /REDIS_URL: must be a URL with scheme redis/,
    );
    expect(errorOf({ REDIS_URL: "redis://x", KAFKA_BROKERS: "nope" }).variable).toBe("KAFKA_BROKERS");
  });
});

describe("vars.nonNegativeInt", () => {
  const counts = z.object({ REPLICAS: vars.nonNegativeInt().default(0) });

  it("takes 0 and whole numbers, and defaults", () => {
    expect(loadConfig(counts, { REPLICAS: "0" })).toEqual({ REPLICAS: 0 });
    expect(loadConfig(counts, { REPLICAS: "2" })).toEqual({ REPLICAS: 2 });
    expect(loadConfig(counts, {})).toEqual({ REPLICAS: 0 });
  });

  it("refuses a negative or fractional count, saying what it expected", () => {
    for (const value of ["-1", "1.5", "two"])
      expect(() => loadConfig(counts, { REPLICAS: value })).toThrow("REPLICAS: must be a whole number, 0 or more");
  });
});
