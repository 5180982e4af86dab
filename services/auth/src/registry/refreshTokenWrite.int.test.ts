import { join } from "node:path";
import { createRedis, type Redis } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { authKeys } from "./keys.js";
import { defineRefreshTokenWrite, queueRefreshTokenWrite, writeCappedRefreshToken } from "./refreshTokenWrite.js";

const dir = tempDir("auth-refresh-cap");
let server: RunningRedis;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: server.url, connectionName: "refresh-cap-test" });
  await waitFor(async () => redis.status === "ready", { what: "redis" });
});

beforeEach(() => redis.flushall());

afterAll(async () => {
  redis.disconnect();
  await server.stop();
  dir.remove();
});

const KEY = "ak_AAAAAAAAAAAAAAAAAAAAAA";
// Real time: Redis expires records by its own clock.
const now = Date.now();
const token = (index: number) => ({
  hmac: `h${index}`,
  record: { keyId: KEY, secretVersion: 1, expiresAt: new Date(now + index * 60_000).toISOString() },
});
const live = async () =>
  (await redis.zrange(authKeys.refreshTokensOfKey(KEY), "0", "-1")).map((key) => key.replace("auth:refresh:", ""));
const stored = async () => (await redis.keys("auth:refresh:h*")).map((key) => key.replace("auth:refresh:", "")).sort();

describe("capped refresh-token writes", () => {
  it("keep at most the cap of live tokens per key, dropping those that expire first, records and all", async () => {
    for (const index of [1, 2, 3, 4, 5])
      await writeCappedRefreshToken(redis, token(index).hmac, token(index).record, 3, now);
    expect(await live()).toEqual(["h3", "h4", "h5"]);
    expect(await stored()).toEqual(["h3", "h4", "h5"]);
    expect(await redis.hgetall(authKeys.refreshToken("h5"))).toMatchObject({ keyId: KEY, secretVersion: "1" });
    // The set lives as long as its longest-lived token.
    expect(await redis.pexpiretime(authKeys.refreshTokensOfKey(KEY))).toBe(now + 5 * 60_000);
  });

  it("end in the same state whichever order the writes come in (issuer first, projection first, a replay)", async () => {
    const orders = [
      [1, 2, 3, 4, 5],
      [5, 4, 3, 2, 1],
      [3, 5, 1, 4, 2, 5, 3],
    ];
    const outcomes = [];
    for (const order of orders) {
      await redis.flushall();
      for (const index of order) await writeCappedRefreshToken(redis, token(index).hmac, token(index).record, 3, now);
      outcomes.push([await live(), await stored()]);
    }
    expect(outcomes).toEqual(
      orders.map(() => [
        ["h3", "h4", "h5"],
        ["h3", "h4", "h5"],
      ]),
    );
  });

  it("never writes an expired token and drops the key's expired ones; works inside a MULTI", async () => {
    defineRefreshTokenWrite(redis);
    const multi = redis.multi();
    queueRefreshTokenWrite(multi, token(1).hmac, token(1).record, 3, now);
    queueRefreshTokenWrite(multi, token(2).hmac, token(2).record, 3, now);
    expect((await multi.exec())!.map(([error]) => error)).toEqual([null, null]);
    // Later: token 1 has expired (Redis dropped its record on time; the set still names it).
    await writeCappedRefreshToken(redis, token(3).hmac, token(3).record, 3, now + 90_000);
    expect(await live()).toEqual(["h2", "h3"]);
    await writeCappedRefreshToken(
      redis,
      "expired",
      { keyId: KEY, secretVersion: 1, expiresAt: new Date(now).toISOString() },
      3,
      now + 90_000,
    );
    expect(await redis.exists(authKeys.refreshToken("expired"))).toBe(0);
  });
});
