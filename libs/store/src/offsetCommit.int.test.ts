import { join } from "node:path";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedis, type Redis, redisReadiness } from "./createRedis.js";
import { awaitStoredOffset, commitAtOffset } from "./offsetCommit.js";

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

const step = (name: string, previousOffset: string | undefined, lastOffset: string) => ({
  offsetKey: `${name}:offset`,
  previousOffset,
  lastOffset,
  partition: `${name}/0`,
});

describe("commitAtOffset against a real redis-server", () => {
  it("writes a batch and its offset together, batch after batch", async () => {
    await commitAtOffset(redis, step("a", undefined, "4"), (multi) => void multi.set("a:value", "first"));
    await commitAtOffset(redis, step("a", "4", "9"), (multi) => void multi.set("a:value", "second"));
    expect([await redis.get("a:offset"), await redis.get("a:value")]).toEqual(["9", "second"]);
  });

  it("refuses a batch that does not continue from the stored offset, writing nothing", async () => {
    await commitAtOffset(redis, step("b", undefined, "4"), (multi) => void multi.set("b:value", "first"));
    await expect(
      commitAtOffset(redis, step("b", undefined, "4"), (multi) => void multi.set("b:value", "again")),
    ).rejects.toThrow("stored offset of b/0 is 4, the batch continues from none");
    await expect(
      commitAtOffset(redis, step("b", "7", "9"), (multi) => void multi.set("b:value", "skip")),
    ).rejects.toThrow("stored offset of b/0 is 4");
    expect([await redis.get("b:offset"), await redis.get("b:value")]).toEqual(["4", "first"]);
  });

  it("refuses a batch when the offset or a watched key changes between the check and the write", async () => {
    await commitAtOffset(redis, step("c", undefined, "1"), () => undefined);
    await expect(
      commitAtOffset(redis, step("c", "1", "2"), async (multi) => {
        await other.set("c:offset", "5"); // another member took the partition and moved on
        multi.set("c:value", "late");
      }),
    ).rejects.toThrow("the offset of c/0 changed during the batch");
    await expect(
      commitAtOffset(
        redis,
        step("c", "5", "6"),
        async (multi) => {
          await other.set("c:record", "changed");
          multi.set("c:value", "stale");
        },
        ["c:record"],
      ),
    ).rejects.toThrow("changed during the batch");
    expect([await redis.get("c:offset"), await redis.get("c:value")]).toEqual(["5", null]);
    // The connection is not left watching: the next batch goes through.
    await commitAtOffset(redis, step("c", "5", "6"), (multi) => void multi.set("c:value", "ok"));
    expect(await redis.get("c:value")).toBe("ok");
  });

  it("awaits a stored offset, or says false at the deadline", async () => {
    setTimeout(() => void other.set("d:offset", "12"), 100);
    expect(await awaitStoredOffset(redis, "d:offset", "12", Date.now() + 5_000)).toBe(true);
    expect(await awaitStoredOffset(redis, "d:offset", "13", Date.now() + 100)).toBe(false);
  });
});
