import { join } from "node:path";
import { countSocketWrites, type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coalesceWrites } from "./coalesceWrites.js";
import { createRedis, type RedisNode, redisReadiness } from "./createRedis.js";

const dir = tempDir("store-coalesce");
let server: RunningRedis;

beforeAll(async () => {
  server = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
});

afterAll(async () => {
  await server.stop();
  dir.remove();
});

async function connected(): Promise<RedisNode> {
  // A standalone server: one socket to count writes on.
  const redis = createRedis({ url: server.url, connectionName: "coalesce-test" }) as RedisNode;
  await waitFor(() => redisReadiness(redis), { what: "redis" });
  return redis;
}

const socketWrites = (redis: RedisNode, run: () => Promise<unknown>) => countSocketWrites(redis.stream, run);

/** Five reads started by five independent callbacks of one event-loop turn, plus a pipeline. */
function concurrentReads(redis: RedisNode): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const replies: Array<Promise<unknown>> = [];
    // Callbacks of one turn, as socket reads of five requests would be.
    for (let index = 0; index < 5; index += 1) {
      process.nextTick(() => replies.push(redis.get(`key:${index}`)));
    }
    process.nextTick(() => replies.push(redis.pipeline().get("key:1").get("key:2").exec()));
    setImmediate(() => Promise.all(replies).then(resolve, reject));
  });
}

describe("coalesceWrites", () => {
  it("sends the commands of one event-loop turn in one socket write, with every reply in its place", async () => {
    const redis = await connected();
    await redis.mset("key:0", "zero", "key:1", "one", "key:2", "two", "key:3", "three", "key:4", "four");
    let replies: unknown[] = [];
    const plain = await socketWrites(redis, async () => {
      replies = await concurrentReads(redis);
    });
    expect(plain).toBe(6);
    const expected = [
      "zero",
      "one",
      "two",
      "three",
      "four",
      [
        [null, "one"],
        [null, "two"],
      ],
    ];
    expect(replies).toEqual(expected);

    const restore = coalesceWrites(redis);
    const coalesced = await socketWrites(redis, async () => {
      replies = await concurrentReads(redis);
    });
    expect(coalesced).toBe(1);
    expect(replies).toEqual(expected);

    // Sequential round trips still go out one after the other (each in its own turn).
    expect(
      await socketWrites(redis, async () => {
        await redis.get("key:0");
        await redis.get("key:1");
      }),
    ).toBe(2);
    restore();
    redis.disconnect();
  });

  it("keeps working across a reconnect (a new socket) and fails commands as before while Redis is away", async () => {
    const redis = await connected();
    coalesceWrites(redis);
    await redis.set("survivor", "yes");
    const before = redis.stream;
    // ioredis types CLIENT KILL only in its older form; the filter form is what this needs.
    await redis.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "no").catch(() => undefined);
    await waitFor(async () => redis.status === "ready" && redis.stream !== before && (await redisReadiness(redis)), {
      what: "reconnected",
    });
    expect(await Promise.all([redis.get("survivor"), redis.exists("survivor")])).toEqual(["yes", 1]);
    redis.disconnect();
    await expect(redis.get("survivor")).rejects.toThrow();
  });
});
