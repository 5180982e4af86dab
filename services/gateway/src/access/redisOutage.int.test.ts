import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { defineRoute } from "@platform/http";
import { createLogger } from "@platform/log";
import { createMetricsRegistry, watchDependencies } from "@platform/runtime";
import { createRedis, type Redis, redisReadiness } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGatewayApp } from "../app.js";
import { createAccessGuard } from "./accessGuard.js";
import { createRateLimiter } from "./rateLimiter.js";

// The gateway's Redis (revocation and rate budgets) lost under a protected route, with a real
// Redis server stopped and started again: 503 UNAVAILABLE with Retry-After, never 500, and the
// route serves again by itself once Redis is back.
const dir = tempDir("gateway-redis-outage");
const KEY_ID = "ak_AAAAAAAAAAAAAAAAAAAAAA";
let redisServer: RunningRedis;
let redis: Redis;
let server: Server;
let base: string;

const thing = defineRoute({
  method: "get",
  path: "/data/v1/things/latest",
  operationId: "thing",
  scope: "data:read",
  docs: {
    summary: "thing",
    tags: ["test"],
    success: { status: 200, description: "a thing", contentType: "application/json", example: {} },
  },
  async handle() {
    return { status: 200, body: { ok: true } };
  },
});
const echo = defineRoute({
  method: "post",
  path: "/intents/v1/echo",
  operationId: "echo",
  scope: "data:read",
  body: z.object({ text: z.string() }),
  docs: {
    summary: "echo",
    tags: ["test"],
    success: { status: 200, description: "echoed", contentType: "application/json", example: {} },
  },
  async handle({ body }) {
    return { status: 200, body };
  },
});

beforeAll(async () => {
  redisServer = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: redisServer.url, connectionName: "gateway-outage-test" });
  await waitFor(() => redisReadiness(redis), { what: "redis" });
  await redis.hset(`auth:key:{${KEY_ID}}`, { status: "active", secretVersion: "1" });
  const verifier = {
    verify: async () => ({
      ok: true as const,
      claims: { keyId: KEY_ID, scopes: new Set(["data:read"]), tier: "standard", secretVersion: 1, expiresAt: 2e9 },
    }),
  };
  const guard = createAccessGuard(
    verifier,
    createRateLimiter(redis, [{ name: "standard", ratePerSecond: 1_000, burst: 1_000 }], "standard"),
  );
  const readiness = watchDependencies([{ name: "redis", probe: () => redisReadiness(redis) }], 60_000);
  const app = createGatewayApp({
    log: createLogger({ service: "gateway-outage-test", level: "silent" }),
    guard,
    registry: createMetricsRegistry("gateway-outage-test"),
    readiness,
    routes: [thing, echo],
    publicBaseUrl: "https://api.example",
    maxBodyBytes: 1024,
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  redis?.disconnect();
  await redisServer?.stop();
  dir.remove();
});

const read = () => fetch(`${base}/data/v1/things/latest`, { headers: { authorization: "Bearer any" } });
const write = () =>
  fetch(`${base}/intents/v1/echo`, {
    method: "POST",
    headers: { authorization: "Bearer any", "content-type": "application/json" },
    body: JSON.stringify({ text: "hi" }),
  });

describe("a lost Redis under a protected route", () => {
  it("answers 503 UNAVAILABLE with Retry-After on the fast path and through express, and serves again once Redis is back", async () => {
    expect((await read()).status).toBe(200);
    const port = redisServer.port;
    await redisServer.stop();
    await waitFor(async () => redis.status !== "ready", { what: "the connection lost" });
    for (const send of [read, write]) {
      const response = await send();
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("2");
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(await response.json()).toMatchObject({ status: 503, code: "UNAVAILABLE" });
    }
    redisServer = await startRedis({
      port,
      dir: join(dir.path, "redis-again"),
      logFile: join(dir.path, "redis-again.log"),
    });
    await waitFor(() => redisReadiness(redis), { what: "the connection back", timeoutMs: 10_000 });
    await redis.hset(`auth:key:{${KEY_ID}}`, { status: "active", secretVersion: "1" });
    expect((await read()).status).toBe(200);
    expect((await write()).status).toBe(200);
  }, 30_000);
});
