import { join } from "node:path";
import { createRedis, type Redis, redisReadiness } from "@platform/store";
import { type RunningRedisCluster, startRedisCluster, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStreamSlots } from "../routes/events/streamSlots.js";
import { createRateLimiter, rateLimitKeys } from "./rateLimiter.js";

/**
 * The gateway's Redis scripts on a Redis Cluster (3 primaries, a replica each): the rate limiter
 * (auth's key record and the budget, one tag per API key) and the event-stream leases, for keys
 * whose slots live on different primaries.
 */

const dir = tempDir("gateway-cluster");
let cluster: RunningRedisCluster;
let redis: Redis;

beforeAll(async () => {
  cluster = await startRedisCluster({ dir: join(dir.path, "cluster"), logDir: join(dir.path, "logs") });
  redis = createRedis({ mode: "cluster", nodes: cluster.nodeList.split(","), connectionName: "gateway" });
  await waitFor(() => redisReadiness(redis), { what: "cluster client ready" });
}, 120_000);

afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
  dir.remove();
});

/** API key ids until two of them live on different primaries. */
async function keysOnTwoPrimaries(): Promise<[string, string]> {
  const first = "ak_AAAAAAAAAAAAAAAAAAAAAA";
  const owner = (await cluster.primaryOf(rateLimitKeys(first)[0])).port;
  for (let n = 0; ; n++) {
    const other = `ak_B${String(n).padStart(21, "0")}`;
    if ((await cluster.primaryOf(rateLimitKeys(other)[0])).port !== owner) return [first, other];
  }
}

describe("the gateway's scripts on a Redis Cluster", () => {
  it("admits and limits each key's budget on its own primary, in one script call per key", async () => {
    const [one, two] = await keysOnTwoPrimaries();
    for (const keyId of [one, two]) await redis.hset(rateLimitKeys(keyId)[0], { status: "active", secretVersion: "1" });
    await redis.set("auth:registry", "complete");
    const limiter = createRateLimiter(redis, [{ name: "two", ratePerSecond: 1, burst: 2 }], "two");
    const verdicts = await Promise.all(
      [one, one, one, two, two, two].map((keyId) => limiter.admit(keyId, 1, "two", 1)),
    );
    expect(verdicts.map((verdict) => verdict.kind)).toEqual([
      "allowed",
      "allowed",
      "limited",
      "allowed",
      "allowed",
      "limited",
    ]);
    // A rotated secret and an unknown key (with auth's registry whole) are refused as on one server.
    expect((await limiter.admit(one, 2, "two", 0)).kind).toBe("rotated");
    expect((await limiter.admit("ak_ZZZZZZZZZZZZZZZZZZZZZZ", 1, "two", 0)).kind).toBe("revoked");
  });

  it("caps the event streams of each key over the cluster", async () => {
    const [one, two] = await keysOnTwoPrimaries();
    const slots = createStreamSlots(redis, { cap: 2, leaseMs: 10_000 });
    const taken = await Promise.all([one, one, one, two].map((keyId) => slots.take(keyId)));
    expect(taken.map((slot) => slot !== undefined)).toEqual([true, true, false, true]);
    expect(await taken[0]!.renew()).toBe(true);
    await taken[0]!.release();
    expect(await slots.take(one)).toBeDefined();
  });
});
