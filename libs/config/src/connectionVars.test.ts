import { describe, expect, it } from "vitest";
import { z } from "zod";
import { redisClusterUnsupported, redisReadFromVars, redisTopologyRule, redisTopologyVars } from "./connectionVars.js";
import { ConfigError, loadConfig } from "./loadConfig.js";

// As data-query takes them; the other services take no REDIS_READ_FROM.
const schema = z.object({ ...redisTopologyVars, ...redisReadFromVars }).superRefine(redisTopologyRule);

function problem(env: NodeJS.ProcessEnv, against: Parameters<typeof loadConfig>[0] = schema): string {
  try {
    loadConfig(against, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("the Redis topology variables", () => {
  it("default to a standalone server at REDIS_URL, read from the primary", () => {
    expect(loadConfig(schema, { REDIS_URL: "redis://127.0.0.1:6379" })).toEqual({
      REDIS_URL: "redis://127.0.0.1:6379",
      REDIS_MODE: "standalone",
      REDIS_READ_FROM: "primary",
      REDIS_TLS: false,
    });
    expect(problem({})).toBe("REDIS_URL: is required but not set");
  });

  it("take a cluster's nodes, and replicas to read from", () => {
    expect(
      loadConfig(schema, {
        REDIS_MODE: "cluster",
        REDIS_NODES: "10.0.0.1:6379, 10.0.0.2:6379",
        REDIS_READ_FROM: "replicas",
      }),
    ).toMatchObject({
      REDIS_MODE: "cluster",
      REDIS_NODES: ["10.0.0.1:6379", "10.0.0.2:6379"],
      REDIS_READ_FROM: "replicas",
    });
    expect(problem({ REDIS_MODE: "cluster" })).toBe("REDIS_NODES: is required but not set");
    expect(problem({ REDIS_MODE: "cluster", REDIS_NODES: "redis://a:1" })).toMatch(
      /^REDIS_NODES: must be a comma-separated list of host:port/,
    );
  });

  it("take the Sentinels and the primary's name", () => {
    expect(
      loadConfig(schema, {
        REDIS_MODE: "sentinel",
        REDIS_SENTINELS: "s1:26379,s2:26379",
        REDIS_SENTINEL_NAME: "platform",
      }),
    ).toMatchObject({ REDIS_SENTINELS: ["s1:26379", "s2:26379"], REDIS_SENTINEL_NAME: "platform" });
    expect(problem({ REDIS_MODE: "sentinel", REDIS_SENTINELS: "s1:26379" })).toBe(
      "REDIS_SENTINEL_NAME: is required but not set",
    );
  });

  it("refuse an unknown mode, and settings of another mode", () => {
    expect(problem({ REDIS_MODE: "clustered", REDIS_URL: "redis://a:1" })).toBe(
      "REDIS_MODE: must be standalone, cluster or sentinel",
    );
    expect(problem({ REDIS_URL: "redis://a:1", REDIS_NODES: "a:1" })).toBe(
      "REDIS_NODES: is read only when REDIS_MODE is cluster",
    );
    expect(problem({ REDIS_URL: "redis://a:1", REDIS_READ_FROM: "replicas" })).toBe(
      "REDIS_READ_FROM: replicas is possible only when REDIS_MODE is cluster",
    );
  });
});

describe("a service that cannot run on a cluster yet", () => {
  const single = z
    .object({ ...redisTopologyVars })
    .superRefine(redisTopologyRule)
    .superRefine(redisClusterUnsupported("its commits span slots"));

  it("refuses REDIS_MODE=cluster with the reason, and takes the other modes", () => {
    expect(problem({ REDIS_MODE: "cluster", REDIS_NODES: "a:1" }, single)).toBe(
      "REDIS_MODE: cluster is not supported by this service yet (its commits span slots): use standalone or sentinel",
    );
    expect(loadConfig(single, { REDIS_URL: "redis://a:1" })).toMatchObject({ REDIS_MODE: "standalone" });
    expect(
      loadConfig(single, { REDIS_MODE: "sentinel", REDIS_SENTINELS: "s:26379", REDIS_SENTINEL_NAME: "p" }),
    ).toMatchObject({ REDIS_MODE: "sentinel" });
  });
});
