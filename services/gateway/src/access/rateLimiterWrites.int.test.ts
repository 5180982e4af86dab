import { join } from "node:path";
import { coalesceWrites, createRedis, type RedisNode, redisReadiness } from "@platform/store";
import { countSocketWrites, type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRateLimiter } from "./rateLimiter.js";

const dir = tempDir("gateway-coalesce");
let server: RunningRedis;
let redis: RedisNode;

beforeAll(async () => {
  server = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  // A standalone server: one socket to count writes on.
  redis = createRedis({ url: server.url, connectionName: "coalesce-test" }) as RedisNode;
  await waitFor(() => redisReadiness(redis), { what: "redis" });
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
  dir.remove();
});

const socketWrites = (run: () => Promise<unknown>) => countSocketWrites(redis.stream, run);

describe("coalesceWrites on the gateway's client", () => {
  it("sends the rate-limit scripts of requests arriving in one event-loop turn in one write, each with its own verdict", async () => {
    const keys = ["ak_AAAAAAAAAAAAAAAAAAAAAA", "ak_BBBBBBBBBBBBBBBBBBBBBB", "ak_CCCCCCCCCCCCCCCCCCCCCC"];
    for (const keyId of keys) await redis.hset(`auth:key:{${keyId}}`, { status: "active", secretVersion: "1" });
    await redis.hset(`auth:key:{${keys[2]}}`, "status", "revoked");
    await redis.set("auth:registry", "complete");
    const limiter = createRateLimiter(redis, [{ name: "tiny", ratePerSecond: 1, burst: 2 }], "tiny");
    await limiter.admit(keys[0]!, 1, "tiny", 0); // loads the script on this connection
    coalesceWrites(redis);
    let verdicts: unknown[] = [];
    const writes = await socketWrites(async () => {
      // Three requests read from their sockets in one turn: each starts its check in its own callback.
      verdicts = await new Promise((resolve, reject) => {
        const pending: Array<Promise<unknown>> = [];
        process.nextTick(() => pending.push(limiter.admit(keys[0]!, 1, "tiny", 1)));
        process.nextTick(() => pending.push(limiter.admit(keys[1]!, 2, "tiny", 1)));
        process.nextTick(() => pending.push(limiter.admit(keys[2]!, 1, "tiny", 1)));
        setImmediate(() => Promise.all(pending).then(resolve, reject));
      });
    });
    // One write for the three scripts; the revoked key's then asks whether auth's registry is whole (a second).
    expect(writes).toBe(2);
    expect(verdicts.map((verdict) => (verdict as { kind: string }).kind)).toEqual(["allowed", "rotated", "revoked"]);
  });

  it("admits the requests of one key arriving in one turn with one script call, in order, each with its own verdict", async () => {
    const keyId = "ak_DDDDDDDDDDDDDDDDDDDDDD";
    await redis.hset(`auth:key:{${keyId}}`, { status: "active", secretVersion: "1" });
    const limiter = createRateLimiter(redis, [{ name: "three", ratePerSecond: 1, burst: 3 }], "three");
    await limiter.admit(keyId, 1, "three", 0); // loads the script on this connection
    const scriptCalls = async () =>
      Number(/cmdstat_evalsha:calls=(\d+)/.exec(await redis.info("commandstats"))?.[1] ?? 0);
    const before = await scriptCalls();
    // A check (cost 0) spends nothing; a request of cost 2 that does not fit is refused and the
    // cheaper one after it still fits.
    const verdicts = await Promise.all([1, 0, 1, 2, 1, 1].map((cost) => limiter.admit(keyId, 1, "three", cost)));
    expect(await scriptCalls()).toBe(before + 1);
    expect(verdicts.map((verdict) => verdict.kind)).toEqual([
      "allowed",
      "allowed",
      "allowed",
      "limited",
      "allowed",
      "limited",
    ]);
    expect(verdicts.map((verdict) => ("remaining" in verdict ? verdict.remaining : undefined))).toEqual([
      2, 2, 1, 1, 0, 0,
    ]);
    const limited = verdicts[5];
    expect(limited?.kind === "limited" && limited.retryAfterMs).toBeGreaterThan(900);

    // Every request of a batch of a revoked key, or of a token whose secret was rotated, is refused alike.
    await redis.hset(`auth:key:{${keyId}}`, "secretVersion", "2");
    expect(
      (await Promise.all([1, 1].map(() => limiter.admit(keyId, 1, "three", 1)))).map((verdict) => verdict.kind),
    ).toEqual(["rotated", "rotated"]);
    await redis.hset(`auth:key:{${keyId}}`, "status", "revoked");
    expect(
      (await Promise.all([1, 1].map(() => limiter.admit(keyId, 2, "three", 1)))).map((verdict) => verdict.kind),
    ).toEqual(["revoked", "revoked"]);
  });
});
