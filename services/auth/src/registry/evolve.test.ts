import type { ApiKeyEvent } from "@platform/proto/events/v1/auth_api_keys";
import { describe, expect, it } from "vitest";
import { apiKeyFromHash, apiKeyToHash } from "./apiKeyRecord.js";
import { evolve } from "./evolve.js";

const keyId = "ak_0000000000000000000002";
const created: ApiKeyEvent = {
  event: {
    $case: "apiKeyCreated",
    value: {
      keyId,
      name: "demo",
      scopes: ["data:read", "intents:read"],
      tier: "free",
      secretHmac: "aa",
      pepperId: "p1",
      createdAt: "2026-01-01T00:00:00.000Z",
      kind: "",
      allowedOrigins: [],
    },
  },
};
const rotated = (secretHmac: string, rotatedAt: string): ApiKeyEvent => ({
  event: { $case: "apiKeySecretRotated", value: { keyId, secretHmac, pepperId: "p1", rotatedAt } },
});
const revoked: ApiKeyEvent = {
  event: { $case: "apiKeyRevoked", value: { keyId, revokedAt: "2026-03-01T00:00:00.000Z", reason: "done" } },
};
const refreshIssued: ApiKeyEvent = {
  event: {
    $case: "refreshTokenIssued",
    value: {
      keyId,
      tokenHmac: "ff",
      pepperId: "p1",
      secretVersion: 1,
      issuedAt: "2026-01-02T00:00:00.000Z",
      expiresAt: "2026-02-01T00:00:00.000Z",
    },
  },
};

const fold = (events: ApiKeyEvent[]) => events.reduce(evolve, undefined as ReturnType<typeof evolve>);

describe("evolve", () => {
  it("starts a key at secret version 1, active", () => {
    expect(fold([created])).toEqual({
      id: keyId,
      name: "demo",
      scopes: ["data:read", "intents:read"],
      tier: "free",
      kind: "server",
      allowedOrigins: [],
      status: "active",
      secretHmac: "aa",
      pepperId: "p1",
      secretVersion: 1,
      createdAt: "2026-01-01T00:00:00.000Z",
    });
  });

  it("keeps a browser key's kind and origins, through the Redis hash too", () => {
    const browser: ApiKeyEvent = {
      event: {
        $case: "apiKeyCreated",
        value: {
          ...(created.event!.value as object),
          kind: "browser",
          allowedOrigins: ["https://a.example", "https://b.example"],
        } as never,
      },
    };
    const record = fold([browser, rotated("bb", "2026-02-01T00:00:00.000Z")])!;
    expect(record).toMatchObject({ kind: "browser", allowedOrigins: ["https://a.example", "https://b.example"] });
    expect(apiKeyToHash(record)).toMatchObject({ kind: "browser", origins: "https://a.example https://b.example" });
    expect(apiKeyFromHash(keyId, apiKeyToHash(record))).toEqual(record);
    // A server key's hash has neither field (as before kinds), and a browser hash without origins is damaged.
    const server = fold([created])!;
    expect(apiKeyToHash(server)).not.toHaveProperty("kind");
    expect(apiKeyFromHash(keyId, apiKeyToHash(server))).toEqual(server);
    expect(apiKeyFromHash(keyId, { ...apiKeyToHash(record), origins: "" })).toBeUndefined();
    expect(apiKeyFromHash(keyId, { ...apiKeyToHash(record), kind: "other" })).toBeUndefined();
  });

  it("counts rotations in the secret version and keeps the latest secret", () => {
    const record = fold([
      created,
      rotated("bb", "2026-01-05T00:00:00.000Z"),
      refreshIssued,
      rotated("cc", "2026-01-06T00:00:00.000Z"),
    ]);
    expect(record).toMatchObject({
      secretHmac: "cc",
      secretVersion: 3,
      secretRotatedAt: "2026-01-06T00:00:00.000Z",
      status: "active",
    });
  });

  it("revokes for good, keeping the rest of the record", () => {
    expect(fold([created, revoked])).toMatchObject({
      status: "revoked",
      revokedAt: "2026-03-01T00:00:00.000Z",
      secretVersion: 1,
      name: "demo",
    });
  });

  it("leaves unknown keys unknown and refresh tokens out of the key", () => {
    expect(fold([revoked, rotated("bb", "2026-01-05T00:00:00.000Z")])).toBeUndefined();
    expect(fold([created, refreshIssued])).toEqual(fold([created]));
  });

  it("replays to the same record over a surviving one (creation starts afresh)", () => {
    const once = fold([created, rotated("bb", "2026-01-05T00:00:00.000Z")]);
    const again = [created, rotated("bb", "2026-01-05T00:00:00.000Z")].reduce(evolve, once);
    expect(again).toEqual(once);
  });

  it("round-trips through the Redis hash layout", () => {
    const record = fold([created, rotated("bb", "2026-01-05T00:00:00.000Z"), revoked])!;
    const hash = apiKeyToHash(record);
    expect(hash).toEqual({
      name: "demo",
      scopes: "data:read intents:read",
      tier: "free",
      status: "revoked",
      secretHmac: "bb",
      pepperId: "p1",
      secretVersion: "2",
      createdAt: "2026-01-01T00:00:00.000Z",
      revokedAt: "2026-03-01T00:00:00.000Z",
      secretRotatedAt: "2026-01-05T00:00:00.000Z",
    });
    expect(apiKeyFromHash(keyId, hash)).toEqual(record);
    expect(apiKeyFromHash(keyId, {})).toBeUndefined();
  });
});
