import { describe, expect, it } from "vitest";
import { isWellFormed, newCredential } from "./credentialFormat.js";
import { pepperFrom, sameDigest } from "./pepper.js";

describe("credential format", () => {
  it("makes prefixed credentials of fixed length that pass their own check", () => {
    const id = newCredential("keyId");
    const secret = newCredential("secret");
    const refresh = newCredential("refreshToken");
    expect(id).toMatch(/^ak_[0-9A-Za-z]{22}$/);
    expect(secret).toMatch(/^sk_[0-9A-Za-z]{49}$/);
    expect(refresh).toMatch(/^rt_[0-9A-Za-z]{49}$/);
    expect(isWellFormed("keyId", id)).toBe(true);
    expect(isWellFormed("secret", secret)).toBe(true);
    expect(isWellFormed("refreshToken", refresh)).toBe(true);
  });

  it("makes browser keys' publishable secrets pk_, told apart from sk_ secrets by prefix", () => {
    const publishable = newCredential("publishableSecret");
    expect(publishable).toMatch(/^pk_[0-9A-Za-z]{49}$/);
    expect(isWellFormed("publishableSecret", publishable)).toBe(true);
    expect(isWellFormed("secret", publishable)).toBe(false);
    expect(isWellFormed("publishableSecret", newCredential("secret"))).toBe(false);
  });

  it("never repeats (256 random bits)", () => {
    const seen = new Set(Array.from({ length: 2_000 }, () => newCredential("secret")));
    expect(seen.size).toBe(2_000);
  });

  it("refuses a mistyped secret by its checksum, and the wrong kind by its prefix", () => {
    const secret = newCredential("secret");
    const last = secret.at(-8)!;
    const typo = `${secret.slice(0, -8)}${last === "a" ? "b" : "a"}${secret.slice(-7)}`;
    expect(isWellFormed("secret", typo)).toBe(false);
    expect(isWellFormed("refreshToken", secret)).toBe(false);
    expect(isWellFormed("secret", `${secret}x`)).toBe(false);
    expect(isWellFormed("secret", "")).toBe(false);
  });
});

describe("pepper", () => {
  it("hashes with HMAC-SHA256 and compares digests", () => {
    const pepper = pepperFrom(Buffer.alloc(32, 7));
    const digest = pepper.hmac("sk_value");
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(sameDigest(digest, pepper.hmac("sk_value"))).toBe(true);
    expect(sameDigest(digest, pepper.hmac("sk_other"))).toBe(false);
    expect(pepperFrom(Buffer.alloc(32, 8)).hmac("sk_value")).not.toBe(digest);
  });
});
