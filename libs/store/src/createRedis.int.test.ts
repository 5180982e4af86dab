import { join } from "node:path";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedis, type Redis, redisReadiness } from "./createRedis.js";
import { redisProjectionMarker } from "./projectionMarker.js";

const dir = tempDir("store");
let server: RunningRedis;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis({ dir: join(dir.path, "data"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: server.url, connectionName: "store-test" });
  await waitFor(() => redisReadiness(redis), { what: "redis ready" });
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
  dir.remove();
});

describe("Redis adapter against a real redis-server", () => {
  it("writes and reads atomically with MULTI/EXEC", async () => {
    const result = await redis.multi().set("rm:test:a", "1").incr("rm:test:n").get("rm:test:a").exec();
    expect(result?.map(([, value]) => value)).toEqual(["OK", 1, "1"]);
  });

  it("fails fast while the server is down and recovers by itself", async () => {
    await server.stop();
    await waitFor(async () => !(await redisReadiness(redis, 200)), { what: "redis not ready", timeoutMs: 5_000 });
    const started = Date.now();
    await expect(redis.get("rm:test:a")).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2_500);

    server = await startRedis({ port: server.port, dir: join(dir.path, "data"), logFile: join(dir.path, "redis.log") });
    await waitFor(() => redisReadiness(redis, 200), { what: "redis ready again", timeoutMs: 10_000 });
    expect(await redis.set("rm:test:b", "2")).toBe("OK");
  });
});

describe("redisProjectionMarker", () => {
  it("lets the first replica name a rebuild and completes only the rebuild it measured", async () => {
    const marker = redisProjectionMarker(redis, "rm:test:marker");
    expect(await marker.read()).toBeNull();
    await marker.setIfAbsent("rebuilding:first");
    await marker.setIfAbsent("rebuilding:second");
    expect(await marker.read()).toBe("rebuilding:first");
    expect(await marker.replace("rebuilding:second", "complete")).toBe(false);
    expect(await marker.read()).toBe("rebuilding:first");
    expect(await marker.replace("rebuilding:first", "complete")).toBe(true);
    expect(await marker.read()).toBe("complete");
  });
});
