import { join } from "node:path";
import { AppError } from "@platform/errors";
import type { IssueTokenRequest } from "@platform/proto/auth/v1/auth";
import { createRedis, type Redis, redisReadiness } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { newCredential } from "../credentials/credentialFormat.js";
import { authKeys } from "../registry/keys.js";
import { issuerUnderTest } from "./issuerTestSupport.js";
import type { LockoutPolicy } from "./lockoutPolicy.js";

/*
 * Unauthenticated POST /auth against a real Redis (issue 42, item 2): failures cannot fill Redis
 * (no counter for an unknown key id, one per address), an address past its budget costs one read,
 * and a correct secret is never held back by the failures of others behind the same address.
 */

const dir = tempDir("auth-failure-budget");
let server: RunningRedis;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: server.url, connectionName: "failure-budget-test" });
  await waitFor(() => redisReadiness(redis), { what: "redis" });
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
  dir.remove();
});

beforeEach(async () => {
  await redis.flushall();
  // The registry is there and complete: a failure is a failure, not "try again".
  await redis.set(authKeys.marker, "complete");
});

const policy = (changes: Partial<LockoutPolicy["address"]> & { maxDelayMs?: number } = {}): LockoutPolicy => ({
  address: { slowAfter: changes.slowAfter ?? 20, budget: changes.budget ?? 100 },
  windowMs: 900_000,
  maxDelayMs: changes.maxDelayMs ?? 1,
});

const apiKey = (keyId: string, secret: string, clientAddress: string): IssueTokenRequest => ({
  grant: { $case: "apiKey", value: { keyId, secret } },
  clientAddress,
  origin: "",
});

async function failureCode(work: Promise<unknown>): Promise<string> {
  const error = await work.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(AppError);
  return (error as AppError).code;
}

async function commandCalls(name: string): Promise<number> {
  const stats = await redis.info("commandstats");
  return Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
}

describe("failed logins and Redis", () => {
  it("10,000 failures from one address leave Redis' key count bounded, and past the budget cost no lookup and no write", async () => {
    const { issue, addKey } = issuerUnderTest(redis, policy());
    const known = await addKey();
    const before = await redis.dbsize();
    const deadline = () => Date.now() + 10_000;
    const lookupsBefore = await commandCalls("hgetall");
    for (let attempt = 0; attempt < 10_000; attempt += 1) {
      // Random well-formed ids (the old code left a counter for each), a known id with wrong
      // secrets, and malformed ids.
      const request =
        attempt % 3 === 0
          ? apiKey(newCredential("keyId"), newCredential("secret"), "203.0.113.7")
          : attempt % 3 === 1
            ? apiKey(known.id, newCredential("secret"), "203.0.113.7")
            : apiKey("ak_short", "sk_short", "203.0.113.7");
      expect(await failureCode(issue(request, deadline()))).toBe("INVALID_CREDENTIALS");
    }
    // The address's counter alone: nothing per key id.
    expect(await redis.dbsize()).toBe(before + 1);
    expect(await redis.keys("auth:fail:*")).toEqual([authKeys.failuresOfAddress("203.0.113.7")]);
    // Counted up to the budget, then not written again; looked up only below it.
    expect(await redis.get(authKeys.failuresOfAddress("203.0.113.7"))).toBe("100");
    expect((await commandCalls("hgetall")) - lookupsBefore).toBeLessThanOrEqual(100);
  }, 30_000);

  it("counts an unknown key id only against its address", async () => {
    const { issue } = issuerUnderTest(redis, policy());
    expect(
      await failureCode(
        issue(apiKey(newCredential("keyId"), newCredential("secret"), "198.51.100.8"), Date.now() + 5_000),
      ),
    ).toBe("INVALID_CREDENTIALS");
    expect(await redis.keys("auth:fail:*")).toEqual([authKeys.failuresOfAddress("198.51.100.8")]);
  });
});

describe("a correct secret behind a failing address", () => {
  it("is answered at once while failures from its address, on its own key id too, are held back", async () => {
    // Every failure from the second one on waits as long as its deadline allows.
    const { issue, addKey } = issuerUnderTest(redis, policy({ slowAfter: 1, maxDelayMs: 2_000 }));
    const owner = await addKey();
    const address = "192.0.2.99";
    // A stranger behind the same address tries the owner's key id (public: every token's `sub`).
    for (let attempt = 0; attempt < 12; attempt += 1)
      await failureCode(issue(apiKey(owner.id, newCredential("secret"), address), Date.now() + 320));
    const failingFrom = Date.now();
    const failing = failureCode(issue(apiKey(owner.id, newCredential("secret"), address), Date.now() + 700));
    const correctFrom = Date.now();
    const token = await issue(apiKey(owner.id, owner.secret, address), Date.now() + 700);
    const correctMs = Date.now() - correctFrom;
    expect(token.accessToken).toBeTruthy();
    expect(await failing).toBe("INVALID_CREDENTIALS");
    expect(Date.now() - failingFrom).toBeGreaterThanOrEqual(350);
    expect(correctMs).toBeLessThan(200);
  });

  it("is refused at once, like any attempt, once its address spent its budget", async () => {
    const { issue, addKey } = issuerUnderTest(redis, policy({ budget: 3 }));
    const owner = await addKey();
    for (let attempt = 0; attempt < 3; attempt += 1)
      await failureCode(
        issue(apiKey(newCredential("keyId"), newCredential("secret"), "192.0.2.77"), Date.now() + 5_000),
      );
    expect(await failureCode(issue(apiKey(owner.id, owner.secret, "192.0.2.77"), Date.now() + 5_000))).toBe(
      "INVALID_CREDENTIALS",
    );
    // Another address is not concerned.
    expect((await issue(apiKey(owner.id, owner.secret, "192.0.2.78"), Date.now() + 5_000)).accessToken).toBeTruthy();
  });
});
