import { join } from "node:path";
import type { RequestContext } from "@platform/http";
import { createRedis, type Redis, redisReadiness } from "@platform/store";
import { type RunningRedis, startRedis, tempDir, waitFor } from "@platform/testing";
import { type CryptoKey, exportJWK, generateKeyPair, SignJWT } from "jose";
import { Registry } from "prom-client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { HttpProblem } from "../HttpProblem.js";
import { createAccessGuard } from "./accessGuard.js";
import { notModifiedCost } from "./notModifiedCost.js";
import { createRateLimiter } from "./rateLimiter.js";
import type { SigningKeys } from "./signingKeys.js";
import { createTokenVerifier } from "./verifyAccessToken.js";

// The guard against a real Redis (key registry and GCRA budgets) with tokens signed here by keys
// generated for this run. The signing-key source is an in-memory stand-in for auth's GetSigningKeys.
const dir = tempDir("access-guard");
let server: RunningRedis;
let redis: Redis;
let privateKey: CryptoKey;
let publicKey: CryptoKey;
const keyId = "ak_0123456789ABCDEFGHIJKL";
const issuer = "platform-auth";
const audience = "platform-api";

const keys: SigningKeys = {
  keyFor: async (kid) => (kid === "k1" ? publicKey : undefined),
  issuer: async () => issuer,
  audience: async () => audience,
};

function request(authorization?: string, origin?: string): RequestContext {
  return {
    requestId: "req-1",
    keyId: undefined,
    header: (name: string) => (name === "authorization" ? authorization : name === "origin" ? origin : undefined),
    clientAddress: () => "127.0.0.1",
  } satisfies RequestContext;
}

async function token(
  overrides: {
    claims?: Record<string, unknown>;
    kid?: string;
    expiresIn?: number;
    key?: CryptoKey;
    audience?: string;
  } = {},
) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: "data:read intents:read", tier: "tiny", kver: 1, client_id: keyId, ...overrides.claims })
    .setProtectedHeader({ alg: "EdDSA", kid: overrides.kid ?? "k1", typ: "at+jwt" })
    .setSubject(keyId)
    .setIssuer(issuer)
    .setAudience(overrides.audience ?? audience)
    .setIssuedAt(now - 10)
    .setExpirationTime(now + (overrides.expiresIn ?? 900))
    .sign(overrides.key ?? privateKey);
}

function guard(registry?: Registry) {
  const limiter = createRateLimiter(
    redis,
    [
      { name: "tiny", ratePerSecond: 1, burst: 3 },
      { name: "standard", ratePerSecond: 50, burst: 100 },
    ],
    "standard",
  );
  return createAccessGuard(
    createTokenVerifier(keys, { clockToleranceSeconds: 30 }),
    limiter,
    registry === undefined ? {} : { registry },
  );
}

async function rejection(promise: Promise<unknown>): Promise<HttpProblem> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpProblem);
  return error as HttpProblem;
}

beforeAll(async () => {
  server = await startRedis({ dir: join(dir.path, "redis"), logFile: join(dir.path, "redis.log") });
  redis = createRedis({ url: server.url, connectionName: "guard-test" });
  await waitFor(() => redisReadiness(redis), { what: "redis" });
  ({ privateKey, publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" }));
});

beforeEach(async () => {
  await redis.flushall();
  await redis.hset(`auth:key:{${keyId}}`, {
    status: "active",
    secretVersion: "1",
    scopes: "data:read intents:read",
    tier: "tiny",
  });
  // auth's registry is whole: an unknown key is a revoked one.
  await redis.set("auth:registry", "complete");
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
  dir.remove();
});

const route = { scope: "data:read", cost: 1 };

describe("access guard: browser keys' tokens", () => {
  const APP = "https://app.example";
  const browserToken = (claims: Record<string, unknown> = {}) =>
    token({ claims: { kind: "browser", origins: [APP, "http://localhost:5173"], ...claims } });

  it("admits a browser key's token only from an Origin in its list: 403 KEY_ORIGIN_NOT_ALLOWED otherwise, at one unit", async () => {
    const bearer = `Bearer ${await browserToken()}`;
    const check = guard();
    await expect(check(request(bearer, APP), route)).resolves.toMatchObject({ keyId });
    await expect(check(request(bearer, "http://localhost:5173"), route)).resolves.toMatchObject({ keyId });
    for (const origin of ["https://evil.example", "https://app.example.evil", undefined]) {
      await redis.del(`rl:{${keyId}}:default`);
      const problem = await rejection(check(request(bearer, origin), { scope: "data:read", cost: 1 }));
      expect([problem.httpStatus, problem.code]).toEqual([403, "KEY_ORIGIN_NOT_ALLOWED"]);
      expect(problem.detail).toMatch(origin === undefined ? /no Origin header/ : /not allowed from the origin/);
      // Priced like a missing scope (one unit of the burst of 3), so probing is rate limited too.
      expect(problem.headers.ratelimit).toMatch(/^"default";r=2;/);
    }
    await rejection(check(request(bearer, "https://evil.example"), route));
    await rejection(check(request(bearer, "https://evil.example"), route));
    const limited = await rejection(check(request(bearer, "https://evil.example"), route));
    expect([limited.httpStatus, limited.code]).toEqual([429, "RATE_LIMITED"]);
  });

  it("lets a server key's token through from any Origin, and refuses a token with a malformed binding", async () => {
    const check = guard();
    await expect(check(request(`Bearer ${await token()}`, "https://evil.example"), route)).resolves.toMatchObject({
      keyId,
    });
    for (const claims of [
      { kind: "browser", origins: [] },
      { kind: "browser", origins: "https://app.example" },
      { kind: "kiosk", origins: [APP] },
      { origins: undefined },
      { kind: undefined, origins: [APP] },
    ]) {
      const problem = await rejection(check(request(`Bearer ${await browserToken(claims)}`, APP), route));
      expect([problem.httpStatus, problem.code]).toEqual([401, "INVALID_TOKEN"]);
    }
  });
});

describe("access guard: authentication", () => {
  it("admits a valid token and reports the remaining budget", async () => {
    const admission = await guard()(request(`Bearer ${await token()}`), route);
    expect(admission.keyId).toBe(keyId);
    expect(admission.headers).toEqual({ "ratelimit-policy": '"default";q=3;w=3', ratelimit: '"default";r=2;t=1' });
  });

  it("answers 401 UNAUTHENTICATED without a token, with a bare Bearer challenge", async () => {
    const problem = await rejection(guard()(request(), route));
    expect([problem.httpStatus, problem.code, problem.headers["www-authenticate"]]).toEqual([
      401,
      "UNAUTHENTICATED",
      'Bearer realm="api"',
    ]);
  });

  it.each<[string, () => Promise<string>]>([
    ["a malformed header", async () => `Basic ${Buffer.from("a:b").toString("base64")}`],
    ["garbage", async () => "Bearer not.a.jwt"],
    [
      "alg none",
      async () => {
        const header = Buffer.from(JSON.stringify({ alg: "none", typ: "at+jwt", kid: "k1" })).toString("base64url");
        const body = Buffer.from(
          JSON.stringify({
            sub: keyId,
            iss: issuer,
            aud: audience,
            exp: 9_999_999_999,
            iat: 1,
            scope: "data:read",
            tier: "tiny",
            kver: 1,
          }),
        ).toString("base64url");
        return `Bearer ${header}.${body}.`;
      },
    ],
    [
      "HS256 signed with the public key",
      async () => {
        const jwk = await exportJWK(publicKey);
        const secret = new TextEncoder().encode(JSON.stringify(jwk));
        const forged = await new SignJWT({ scope: "data:read", tier: "tiny", kver: 1 })
          .setProtectedHeader({ alg: "HS256", kid: "k1", typ: "at+jwt" })
          .setSubject(keyId)
          .setIssuer(issuer)
          .setAudience(audience)
          .setIssuedAt()
          .setExpirationTime("10m")
          .sign(secret);
        return `Bearer ${forged}`;
      },
    ],
    [
      "a tampered payload",
      async () => {
        const [header, , signature] = (await token()).split(".");
        const body = Buffer.from(
          JSON.stringify({
            sub: keyId,
            iss: issuer,
            aud: audience,
            exp: 9_999_999_999,
            iat: 1,
            scope: "data:read intents:write",
            tier: "unlimited",
            kver: 1,
          }),
        ).toString("base64url");
        return `Bearer ${header}.${body}.${signature}`;
      },
    ],
    ["an unknown kid", async () => `Bearer ${await token({ kid: "k-unknown" })}`],
    [
      "a key nobody published",
      async () => `Bearer ${await token({ key: (await generateKeyPair("EdDSA", { crv: "Ed25519" })).privateKey })}`,
    ],
    ["an expired token beyond the leeway", async () => `Bearer ${await token({ expiresIn: -31 })}`],
    ["another audience", async () => `Bearer ${await token({ audience: "someone-else" })}`],
  ])("answers 401 INVALID_TOKEN for %s", async (_case, header) => {
    const problem = await rejection(guard()(request(await header()), route));
    expect(problem.httpStatus).toBe(401);
    expect(problem.code).toBe("INVALID_TOKEN");
    expect(problem.headers["www-authenticate"]).toMatch(
      /^Bearer realm="api", error="invalid_token", error_description="[^"]+"$/,
    );
  });

  it("accepts a token expired within the clock leeway", async () => {
    await expect(guard()(request(`Bearer ${await token({ expiresIn: -5 })}`), route)).resolves.toMatchObject({ keyId });
  });
});

describe("access guard: key registry", () => {
  it("refuses a token of a revoked key, and of a key whose secret was rotated since", async () => {
    const valid = `Bearer ${await token()}`;
    const check = guard();
    await check(request(valid), route);
    await redis.hset(`auth:key:{${keyId}}`, "status", "revoked");
    expect((await rejection(check(request(valid), route))).detail).toMatch(/revoked/);
    await redis.hset(`auth:key:{${keyId}}`, { status: "active", secretVersion: "2" });
    expect((await rejection(check(request(valid), route))).detail).toMatch(/rotated/);
  });

  it("answers 503 REBUILDING, not 401, for a valid token whose key is missing while auth's registry is rebuilt (Redis lost it)", async () => {
    const valid = `Bearer ${await token()}`;
    await redis.flushall();
    const missing = await rejection(guard()(request(valid), route));
    expect([missing.httpStatus, missing.code, missing.headers["retry-after"]]).toEqual([503, "REBUILDING", "2"]);
    await redis.set("auth:registry", "rebuilding:0b1c");
    expect((await rejection(guard()(request(valid), route))).code).toBe("REBUILDING");
    // Rebuilt without the key: it was revoked or never existed.
    await redis.set("auth:registry", "complete");
    expect((await rejection(guard()(request(valid), route))).code).toBe("INVALID_TOKEN");
  });
});

describe("access guard: scopes and rate limits", () => {
  it("answers 403 for a missing scope at one unit of budget, so probing scopes is rate limited too", async () => {
    const valid = `Bearer ${await token()}`;
    const check = guard();
    const probe = { scope: "intents:write", cost: 5 };
    const problem = await rejection(check(request(valid), probe));
    expect([problem.httpStatus, problem.code]).toEqual([403, "FORBIDDEN"]);
    // Tier tiny: a burst of 3. One unit spent, whatever the route would cost.
    expect(problem.headers.ratelimit).toMatch(/^"default";r=2;/);
    await rejection(check(request(valid), probe));
    await rejection(check(request(valid), probe));
    const limited = await rejection(check(request(valid), probe));
    expect([limited.httpStatus, limited.code]).toEqual([429, "RATE_LIMITED"]);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  });

  it("answers 429 with Retry-After once the budget is spent, shared by two gateways, and admits again after it", async () => {
    const valid = `Bearer ${await token()}`;
    const first = guard();
    const second = guard();
    await first(request(valid), route);
    await second(request(valid), route);
    await first(request(valid), { ...route, cost: 1 });
    const problem = await rejection(second(request(valid), route));
    expect([problem.httpStatus, problem.code]).toEqual([429, "RATE_LIMITED"]);
    const retryAfter = Number(problem.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(problem.headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    await expect(first(request(valid), route)).resolves.toMatchObject({ keyId });
  });

  it("spends fractional costs: five 304s proven from memory spend what one 200 does", async () => {
    const valid = `Bearer ${await token()}`;
    const check = guard();
    const notModified = { ...route, cost: notModifiedCost(route.cost) };
    expect(notModified.cost).toBe(0.2);
    // Tier tiny: a burst of 3 units, refilled at 1 a second.
    let last: Awaited<ReturnType<typeof check>> | undefined;
    for (let index = 0; index < 5; index += 1) last = await check(request(valid), notModified);
    expect(last!.headers.ratelimit).toMatch(/^"default";r=2;/);
    await check(request(valid), route);
    await check(request(valid), route);
    const problem = await rejection(check(request(valid), notModified));
    expect([problem.httpStatus, problem.code]).toEqual([429, "RATE_LIMITED"]);
  });
});

describe("access guard: metrics", () => {
  it("counts every 429 of the rate limiter in gateway_rate_limited_total by the key's tier, as the registry's text output shows", async () => {
    const registry = new Registry();
    const admit = guard(registry);
    const bearer = `Bearer ${await token()}`;
    const line = 'gateway_rate_limited_total{tier="tiny"}';
    const count = async () => {
      const found = (await registry.metrics()).split("\n").find((entry) => entry.startsWith(`${line} `));
      return found === undefined ? undefined : Number(found.slice(line.length + 1));
    };
    // The burst of 3 (one of it spent by a 403 for a missing scope) is admitted and counts nothing.
    expect((await rejection(admit(request(bearer), { scope: "intents:write", cost: 1 }))).httpStatus).toBe(403);
    for (let i = 0; i < 2; i += 1) await admit(request(bearer), route);
    expect(await count()).toBeUndefined();
    const problem = await rejection(admit(request(bearer), route));
    expect(problem.httpStatus).toBe(429);
    expect(await count()).toBe(1);
    // Probing a scope past the budget is a 429 too.
    expect((await rejection(admit(request(bearer), { scope: "intents:write", cost: 1 }))).httpStatus).toBe(429);
    expect(await count()).toBe(2);
  });
});
