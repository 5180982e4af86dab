import { status } from "@grpc/grpc-js";
import { AppError } from "@platform/errors";
import { describe, expect, it } from "vitest";
import type { ApiKeyRecord } from "./apiKeyRecord.js";
import { type Decision, decideCreate, decideIssueRefreshToken, decideRevoke, decideRotate } from "./decide.js";

const now = new Date("2026-03-01T12:00:00.000Z");
const rules = { tiers: ["free", "standard", "unlimited", "browser"], defaultTier: "standard" };
const active: ApiKeyRecord = {
  id: "ak_0000000000000000000001",
  name: "demo",
  scopes: ["data:read"],
  tier: "standard",
  kind: "server",
  allowedOrigins: [],
  status: "active",
  secretHmac: "aa".repeat(32),
  pepperId: "p1",
  secretVersion: 3,
  createdAt: "2026-01-01T00:00:00.000Z",
};
const revoked: ApiKeyRecord = { ...active, status: "revoked", revokedAt: "2026-02-01T00:00:00.000Z" };

const create = (overrides: Partial<Parameters<typeof decideCreate>[0]> = {}) =>
  decideCreate(
    {
      keyId: active.id,
      name: "demo",
      scopes: ["intents:write", "data:read", "data:read"],
      tier: "",
      kind: "",
      allowedOrigins: [],
      secretHmac: "bb".repeat(32),
      pepperId: "p1",
      now,
      ...overrides,
    },
    undefined,
    rules,
  );

function refusal(decision: Decision): { code: string; grpcStatus: number } {
  expect(decision).toBeInstanceOf(AppError);
  const error = decision as AppError;
  return { code: error.code, grpcStatus: error.grpcStatus };
}

describe("decideCreate, browser keys", () => {
  const browser = (overrides: Partial<Parameters<typeof decideCreate>[0]> = {}) =>
    create({ kind: "browser", scopes: ["data:read"], allowedOrigins: ["https://app.example"], ...overrides });

  it("creates a browser key with read scopes, its origins and the tier browser", () => {
    expect(
      browser({ allowedOrigins: ["https://app.example", " https://app.example", "http://localhost:5173"] }),
    ).toMatchObject({
      event: {
        value: {
          kind: "browser",
          allowedOrigins: ["https://app.example", "http://localhost:5173"],
          tier: "browser",
          scopes: ["data:read"],
        },
      },
    });
    expect(browser({ tier: "browser", scopes: ["intents:read", "data:read"] })).toMatchObject({
      event: { value: { tier: "browser", scopes: ["data:read", "intents:read"] } },
    });
  });

  it("refuses write scopes, other tiers, missing or malformed origins, and origins on a server key", () => {
    expect(refusal(browser({ scopes: ["data:read", "intents:write"] }))).toEqual({
      code: "INVALID_SCOPE",
      grpcStatus: status.INVALID_ARGUMENT,
    });
    expect(refusal(browser({ tier: "unlimited" })).code).toBe("UNKNOWN_TIER");
    expect(refusal(browser({ allowedOrigins: [] })).code).toBe("INVALID_ORIGIN");
    for (const origin of [
      "*",
      "null",
      "https://app.example/",
      "https://app.example/path",
      "http://app.example",
      "app.example",
    ])
      expect(refusal(browser({ allowedOrigins: [origin] })).code).toBe("INVALID_ORIGIN");
    expect(
      refusal(browser({ allowedOrigins: Array.from({ length: 21 }, (_, i) => `https://a${i}.example`) })).code,
    ).toBe("INVALID_ORIGIN");
    expect(refusal(create({ allowedOrigins: ["https://app.example"] })).code).toBe("INVALID_ORIGIN");
    expect(refusal(create({ kind: "public" })).code).toBe("INVALID_KIND");
    // Without the tier configured on auth, no browser key can be made.
    const without = decideCreate(
      {
        keyId: active.id,
        name: "web",
        scopes: ["data:read"],
        tier: "",
        kind: "browser",
        allowedOrigins: ["https://app.example"],
        secretHmac: "bb",
        pepperId: "p1",
        now,
      },
      undefined,
      { tiers: ["standard"], defaultTier: "standard" },
    );
    expect(refusal(without).code).toBe("UNKNOWN_TIER");
  });
});

describe("decideCreate", () => {
  it("creates with canonical scopes, the default tier and the time", () => {
    expect(create()).toEqual({
      event: {
        $case: "apiKeyCreated",
        value: {
          keyId: active.id,
          name: "demo",
          scopes: ["data:read", "intents:write"],
          tier: "standard",
          secretHmac: "bb".repeat(32),
          pepperId: "p1",
          createdAt: "2026-03-01T12:00:00.000Z",
          kind: "",
          allowedOrigins: [],
        },
      },
    });
    expect(create({ tier: "free" })).toMatchObject({ event: { value: { tier: "free" } } });
  });

  it("refuses bad names, scopes and tiers with INVALID_ARGUMENT", () => {
    expect(refusal(create({ name: "  " }))).toEqual({ code: "INVALID_NAME", grpcStatus: status.INVALID_ARGUMENT });
    expect(refusal(create({ name: "a\nb" })).code).toBe("INVALID_NAME");
    expect(refusal(create({ name: "x".repeat(101) })).code).toBe("INVALID_NAME");
    expect(refusal(create({ scopes: [] })).code).toBe("INVALID_SCOPE");
    expect(refusal(create({ scopes: ["data:read", "admin"] })).code).toBe("INVALID_SCOPE");
    expect(refusal(create({ tier: "gold" }))).toEqual({ code: "UNKNOWN_TIER", grpcStatus: status.INVALID_ARGUMENT });
  });

  it("never overwrites an existing key", () => {
    const decision = decideCreate(
      {
        keyId: active.id,
        name: "demo",
        scopes: ["data:read"],
        tier: "",
        kind: "",
        allowedOrigins: [],
        secretHmac: "bb",
        pepperId: "p1",
        now,
      },
      active,
      rules,
    );
    expect(refusal(decision).code).toBe("API_KEY_EXISTS");
  });
});

describe("decideRevoke", () => {
  it("revokes an active key with its reason", () => {
    expect(decideRevoke({ keyId: active.id, reason: " leaked ", now }, active)).toEqual({
      event: { $case: "apiKeyRevoked", value: { keyId: active.id, revokedAt: now.toISOString(), reason: "leaked" } },
    });
  });

  it("answers NOT_FOUND for an unknown key and FAILED_PRECONDITION for a revoked one", () => {
    expect(refusal(decideRevoke({ keyId: active.id, reason: "", now }, undefined))).toEqual({
      code: "API_KEY_NOT_FOUND",
      grpcStatus: status.NOT_FOUND,
    });
    expect(refusal(decideRevoke({ keyId: active.id, reason: "", now }, revoked))).toEqual({
      code: "API_KEY_REVOKED",
      grpcStatus: status.FAILED_PRECONDITION,
    });
    expect(refusal(decideRevoke({ keyId: active.id, reason: "x".repeat(501), now }, active)).code).toBe(
      "INVALID_REASON",
    );
  });
});

describe("decideRotate", () => {
  it("replaces the secret's HMAC of an active key", () => {
    expect(decideRotate({ keyId: active.id, secretHmac: "cc", pepperId: "p2", now }, active)).toEqual({
      event: {
        $case: "apiKeySecretRotated",
        value: { keyId: active.id, secretHmac: "cc", pepperId: "p2", rotatedAt: now.toISOString() },
      },
    });
  });

  it("refuses unknown and revoked keys", () => {
    expect(refusal(decideRotate({ keyId: active.id, secretHmac: "cc", pepperId: "p2", now }, undefined)).code).toBe(
      "API_KEY_NOT_FOUND",
    );
    expect(refusal(decideRotate({ keyId: active.id, secretHmac: "cc", pepperId: "p2", now }, revoked)).code).toBe(
      "API_KEY_REVOKED",
    );
  });
});

describe("decideIssueRefreshToken", () => {
  it("binds the token to the key and its current secret version, with its expiry", () => {
    expect(
      decideIssueRefreshToken({ keyId: active.id, tokenHmac: "dd", pepperId: "p1", now, ttlSeconds: 3_600 }, active),
    ).toEqual({
      event: {
        $case: "refreshTokenIssued",
        value: {
          keyId: active.id,
          tokenHmac: "dd",
          pepperId: "p1",
          secretVersion: 3,
          issuedAt: "2026-03-01T12:00:00.000Z",
          expiresAt: "2026-03-01T13:00:00.000Z",
        },
      },
    });
  });

  it("gives a key revoked in the meantime nothing: the credentials' 401", () => {
    expect(
      refusal(
        decideIssueRefreshToken({ keyId: active.id, tokenHmac: "dd", pepperId: "p1", now, ttlSeconds: 60 }, revoked),
      ),
    ).toEqual({
      code: "INVALID_CREDENTIALS",
      grpcStatus: status.UNAUTHENTICATED,
    });
  });
});
