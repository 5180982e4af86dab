import { join } from "node:path";
import { PoolSnapshot } from "@platform/proto/events/v1/chain_network";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePoint, newestPoints } from "./readModel.js";

// Series members never change once written: their parse and decode are kept, deeply frozen.
const dir = tempDir("data-query-read-model");
let redisServer: RunningRedis;
let redis: Redis;

beforeAll(async () => {
  redisServer = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: redisServer.url, connectionName: "read-model-test" });
  await waitFor(async () => redis.status === "ready", { what: "Redis connection" });
});

afterAll(async () => {
  await redis.quit();
  await redisServer.stop();
  dir.remove();
});

const member = (block: number, price: string) =>
  JSON.stringify({
    o: block * 100_000,
    b: block,
    h: `0x${block.toString(16).padStart(64, "0")}`,
    t: block * 12_000,
    p: Buffer.from(
      PoolSnapshot.encode(PoolSnapshot.fromPartial({ netuid: 1, priceTao: price, taoInRao: "10" })).finish(),
    ).toString("base64"),
  });

describe("series points", () => {
  it("are parsed and decoded once per member, shared frozen, and a new member is read afresh", async () => {
    const key = "test:pool:1:points";
    await redis.zadd(key, 100 * 100_000, member(100, "0.5"));
    const [first] = await newestPoints(redis, [key]);
    const [again] = await newestPoints(redis, [key]);
    expect(again).toBe(first);
    const snapshot = decodePoint(first!, PoolSnapshot);
    expect(decodePoint(again!, PoolSnapshot)).toBe(snapshot);
    expect(snapshot).toMatchObject({ netuid: 1, priceTao: "0.5" });
    // A caller that tried to change a shared value would corrupt every later answer: it fails instead.
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      (snapshot as { priceTao: string }).priceTao = "9";
    }).toThrow(TypeError);

    await redis.zadd(key, 101 * 100_000, member(101, "0.6"));
    const [newer] = await newestPoints(redis, [key]);
    expect(newer).not.toBe(first);
    expect(decodePoint(newer!, PoolSnapshot).priceTao).toBe("0.6");
  });
});
