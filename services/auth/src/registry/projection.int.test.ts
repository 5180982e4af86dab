import { join } from "node:path";
import type { ConsumedRecord, ProjectionBatch } from "@platform/bus";
import { createLogger } from "@platform/log";
import { ApiKeyEvent } from "@platform/proto/events/v1/auth_api_keys";
import { TOPICS } from "@platform/proto/topics";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { authKeys } from "./keys.js";
import { registryProjection } from "./projection.js";

const dir = tempDir("auth-projection");
const log = createLogger({ service: "auth-test", level: "silent" });
const topic = TOPICS.authApiKeys.name;
const keyId = "ak_0000000000000000000009";
let server: RunningRedis;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: server.url, connectionName: "auth-projection-test" });
  await waitFor(async () => redis.status === "ready", { what: "redis connection", timeoutMs: 5_000 });
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
  dir.remove();
});
beforeEach(async () => {
  await redis.flushall();
});

function record(offset: number, payload: ApiKeyEvent): ConsumedRecord {
  return {
    topic,
    partition: 0,
    offset: String(offset),
    timestamp: "0",
    key: keyId,
    value: Buffer.from(ApiKeyEvent.encode(payload).finish()),
    eventId: `e${offset}`,
    eventType: "x",
    schema: TOPICS.authApiKeys.schema,
    traceparent: undefined,
    tracestate: undefined,
    headers: {},
  };
}

function batch(messages: ConsumedRecord[], previousOffset: string | undefined): ProjectionBatch {
  return {
    topic,
    partition: 0,
    messages,
    lastOffset: messages.at(-1)!.offset,
    previousOffset,
    heartbeat: async () => undefined,
  };
}

const created: ApiKeyEvent = {
  event: {
    $case: "apiKeyCreated",
    value: {
      keyId,
      name: "demo",
      scopes: ["data:read"],
      tier: "free",
      secretHmac: "aa",
      pepperId: "p1",
      createdAt: "2026-01-01T00:00:00.000Z",
      kind: "",
      allowedOrigins: [],
    },
  },
};
const rotated: ApiKeyEvent = {
  event: {
    $case: "apiKeySecretRotated",
    value: { keyId, secretHmac: "bb", pepperId: "p1", rotatedAt: "2026-01-02T00:00:00.000Z" },
  },
};
const refresh = (tokenHmac: string, expiresAt: string): ApiKeyEvent => ({
  event: {
    $case: "refreshTokenIssued",
    value: { keyId, tokenHmac, pepperId: "p1", secretVersion: 2, issuedAt: "2026-01-02T00:00:00.000Z", expiresAt },
  },
});

describe("the registry projection", () => {
  it("folds a batch into the key, its refresh tokens and the offset together", async () => {
    const projection = registryProjection(redis, log, { refreshTokensPerKey: 25 });
    const future = new Date(Date.now() + 3_600_000).toISOString();
    await projection.handleBatch(
      batch(
        [
          record(0, created),
          record(1, rotated),
          record(2, refresh("cafe", future)),
          record(3, refresh("dead", "2020-01-01T00:00:00.000Z")),
        ],
        undefined,
      ),
    );
    expect(await redis.hgetall(authKeys.apiKey(keyId))).toEqual({
      name: "demo",
      scopes: "data:read",
      tier: "free",
      status: "active",
      secretHmac: "bb",
      pepperId: "p1",
      secretVersion: "2",
      createdAt: "2026-01-01T00:00:00.000Z",
      secretRotatedAt: "2026-01-02T00:00:00.000Z",
    });
    expect(await redis.smembers(authKeys.keySet)).toEqual([keyId]);
    expect(await redis.hgetall(authKeys.refreshToken("cafe"))).toEqual({
      keyId,
      secretVersion: "2",
      expiresAt: future,
    });
    const ttl = await redis.pttl(authKeys.refreshToken("cafe"));
    expect(ttl).toBeGreaterThan(3_500_000);
    // A token that expired before the replay is not brought back.
    expect(await redis.exists(authKeys.refreshToken("dead"))).toBe(0);
    expect(await projection.loadOffsets(topic, 0)).toBe("3");
    expect(await projection.loadOffsets(topic, 1)).toBeUndefined();

    const revoked: ApiKeyEvent = {
      event: { $case: "apiKeyRevoked", value: { keyId, revokedAt: "2026-01-03T00:00:00.000Z", reason: "" } },
    };
    await projection.handleBatch(batch([record(4, revoked)], "3"));
    expect(await redis.hgetall(authKeys.apiKey(keyId))).toMatchObject({
      status: "revoked",
      revokedAt: "2026-01-03T00:00:00.000Z",
      secretVersion: "2",
    });
    expect(await projection.loadOffsets(topic, 0)).toBe("4");
  });

  it("applies only the records above the stored offset, and nothing when Redis stands behind the batch", async () => {
    const projection = registryProjection(redis, log, { refreshTokensPerKey: 25 });
    await projection.handleBatch(batch([record(0, created)], undefined));
    const stored = await redis.hgetall(authKeys.apiKey(keyId));
    // Delivered again from the start (a rebalance overlap): record 0 is skipped, record 1 applied once.
    await projection.handleBatch(batch([record(0, created), record(1, rotated)], undefined));
    expect(await projection.loadOffsets(topic, 0)).toBe("1");
    expect(await redis.hgetall(authKeys.apiKey(keyId))).not.toEqual(stored);
    // Redis lost the registry while the member went on: the batch must not apply over nothing.
    await redis.flushall();
    await expect(projection.handleBatch(batch([record(2, rotated)], "1"))).rejects.toThrow(
      /stands at none, the batch continues from 1/,
    );
    expect(await redis.dbsize()).toBe(0);
  });

  it("skips records it cannot decode instead of stopping the registry", async () => {
    const projection = registryProjection(redis, log, { refreshTokensPerKey: 25 });
    const garbage = { ...record(0, created), value: Buffer.from([0xff, 0xff, 0xff]) };
    await projection.handleBatch(batch([garbage, record(1, created)], undefined));
    expect(await redis.hget(authKeys.apiKey(keyId), "status")).toBe("active");
    expect(await projection.loadOffsets(topic, 0)).toBe("1");
  });
});
