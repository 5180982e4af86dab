import { join } from "node:path";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedis, type Redis, redisReadiness } from "./createRedis.js";
import { awaitStoredOffset } from "./offsetCommit.js";

const dir = tempDir("store-offset-commit");
let server: RunningRedis;
let redis: Redis;
let other: Redis;

beforeAll(async () => {
  server = await startRedis({ dir: join(dir.path, "data"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: server.url, connectionName: "offset-commit-test" });
  other = createRedis({ url: server.url, connectionName: "offset-commit-other" });
  await waitFor(() => redisReadiness(redis), { what: "redis ready" });
});

afterAll(async () => {
  redis.disconnect();
  other.disconnect();
  await server.stop();
  dir.remove();
});

/* The exactly-once commit itself is libs/projection's (redisStore); this is the read-your-writes wait. */
describe("awaitStoredOffset against a real redis-server", () => {
  it("awaits a stored offset, or says false at the deadline", async () => {
    setTimeout(() => void other.set("d:offset", "12"), 100);
    expect(await awaitStoredOffset(redis, "d:offset", "12", Date.now() + 5_000)).toBe(true);
    expect(await awaitStoredOffset(redis, "d:offset", "13", Date.now() + 100)).toBe(false);
  });
});
