import { join } from "node:path";
import { createRedis, type Redis, redisReadiness } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStreamSlots } from "./streamSlots.js";

const dir = tempDir("gateway-stream-slots");
let server: RunningRedis;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis({ dir: join(dir.path, "data"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: server.url, connectionName: "stream-slots-test" });
  await waitFor(() => redisReadiness(redis), { what: "redis ready" });
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
  dir.remove();
});

describe("createStreamSlots against a real redis-server", () => {
  it("holds a key to its cap across replicas, gives a slot back on release, and lets a dead replica's lease run out", async () => {
    // Two gateway replicas, each with its own connection, share the key's slots.
    const other = createRedis({ url: server.url, connectionName: "stream-slots-test-2" });
    await waitFor(() => redisReadiness(other), { what: "second connection ready" });
    const a = createStreamSlots(redis, { cap: 3, leaseMs: 400 });
    const b = createStreamSlots(other, { cap: 3, leaseMs: 400 });
    const first = await a.take("ak_1");
    const second = await b.take("ak_1");
    const third = await a.take("ak_1");
    expect([first, second, third].every(Boolean)).toBe(true);
    expect(await b.take("ak_1")).toBeUndefined();
    // Another key has its own slots.
    expect(await b.take("ak_2")).toBeDefined();
    await second!.release();
    const fourth = await b.take("ak_1");
    expect(fourth).toBeDefined();
    // Renewed leases hold; one not renewed (its replica died) runs out and frees its slot.
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await first!.renew()).toBe(true);
    expect(await fourth!.renew()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await a.take("ak_1")).toBeDefined();
    other.disconnect();
  });
});
