import { join } from "node:path";
import { AppError } from "@platform/errors";
import { createRedis, type Redis, redisReadiness } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedKeyConcurrency } from "./sharedKeyConcurrency.js";

// Two replicas of a service (here intents-gateway's keys) against one real Redis (issue 42, item 7): the per-key limit
// holds across them, and a crashed replica's slots free themselves when their lease ends.

const dir = tempDir("shared-key-concurrency");
let server: RunningRedis;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: server.url, connectionName: "shared-key-concurrency-test" });
  await waitFor(() => redisReadiness(redis), { what: "redis" });
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
  dir.remove();
});

/** A call that runs until released. */
function held() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { work: () => done, release };
}

const refusal = async (attempt: Promise<unknown>) => {
  const error = await attempt.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(AppError);
  return (error as AppError).code;
};

describe("a per-key limit shared by the replicas", () => {
  it("holds across replicas: 4 at once per key in all, not 4 per replica", async () => {
    const replicas = [1, 2].map(() =>
      sharedKeyConcurrency({ redis, keyPrefix: "intents-gateway", limit: 4, what: "quotes" }),
    );
    const calls = Array.from({ length: 4 }, () => held());
    const running = calls.map((call, index) => replicas[index % 2]!.run("ak_shared", call.work));
    await waitFor(async () => replicas[0]!.running("ak_shared") + replicas[1]!.running("ak_shared") === 4, {
      what: "four calls running, two on each replica",
    });
    for (const replica of replicas)
      expect(await refusal(replica.run("ak_shared", async () => "too many"))).toBe("RATE_LIMITED");
    // Another key is not concerned.
    expect(await replicas[1]!.run("ak_other", async () => "ok")).toBe("ok");
    calls[0]!.release();
    await running[0];
    expect(await replicas[1]!.run("ak_shared", async () => "a slot came back")).toBe("a slot came back");
    for (const call of calls) call.release();
    await Promise.all(running);
    expect(await redis.exists("intents-gateway:inflight:quotes:{ak_shared}")).toBe(0);
    for (const replica of replicas) replica.close();
  });

  it("frees a crashed replica's slots when their lease ends, and renews a long call's lease", async () => {
    const leaseMs = 300;
    const survivor = sharedKeyConcurrency({
      redis,
      keyPrefix: "intents-gateway",
      limit: 1,
      what: "preflight checks",
      leaseMs,
    });
    // What a replica that took the slot and died leaves behind: a lease nobody renews.
    await redis.zadd("intents-gateway:inflight:preflight-checks:{ak_crash}", Date.now() + leaseMs, "dead-replica");
    expect(await refusal(survivor.run("ak_crash", async () => "refused"))).toBe("RATE_LIMITED");
    await new Promise((resolve) => setTimeout(resolve, leaseMs + 50));
    // A call outliving several leases keeps its slot the whole time.
    const long = held();
    const running = survivor.run("ak_crash", long.work);
    await new Promise((resolve) => setTimeout(resolve, leaseMs * 3));
    expect(await refusal(survivor.run("ak_crash", async () => "refused"))).toBe("RATE_LIMITED");
    long.release();
    await running;
    survivor.close();
  });
});
