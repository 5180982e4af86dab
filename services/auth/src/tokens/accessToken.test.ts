import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { accessTokenClaims, issueAccessToken } from "./accessToken.js";
import { signingKeysResponse } from "./publishedKeys.js";
import { generateSigningKeyFile, parseSigningKeyFile } from "./signingKeyFile.js";

const subject = {
  keyId: "ak_0000000000000000000003",
  scopes: ["data:read", "intents:read"],
  tier: "free",
  secretVersion: 2,
};
const settings = { issuer: "platform-auth", audience: "platform-api", ttlSeconds: 900 };

describe("access token claims", () => {
  it("follow the RFC 9068 profile of research/platform.md §1.4", () => {
    expect(accessTokenClaims(subject, settings, 1_700_000_000, "jti-1")).toEqual({
      iss: "platform-auth",
      aud: "platform-api",
      sub: "ak_0000000000000000000003",
      client_id: "ak_0000000000000000000003",
      scope: "data:read intents:read",
      tier: "free",
      kver: 2,
      iat: 1_700_000_000,
      exp: 1_700_000_900,
      jti: "jti-1",
    });
  });
});

describe("browser-key access token claims", () => {
  it("carry kind browser and the key's origins; a server key's carry neither", () => {
    const claims = accessTokenClaims(
      { ...subject, tier: "browser", kind: "browser", allowedOrigins: ["https://app.example"] },
      settings,
      1_700_000_000,
      "jti-2",
    );
    expect(claims).toMatchObject({ kind: "browser", origins: ["https://app.example"], tier: "browser" });
    const server = accessTokenClaims({ ...subject, kind: "server", allowedOrigins: [] }, settings, 1, "j");
    expect(server).not.toHaveProperty("kind");
    expect(server).not.toHaveProperty("origins");
  });
});

describe("signed access tokens", () => {
  it("are EdDSA JWS with kid and typ at+jwt that verify against the published keys", async () => {
    const key = parseSigningKeyFile(JSON.stringify(generateSigningKeyFile(new Date(0))));
    const token = await issueAccessToken(subject, settings, key, 1_700_000_000_000);
    expect(decodeProtectedHeader(token)).toEqual({ alg: "EdDSA", kid: key.kid, typ: "at+jwt" });

    const published = signingKeysResponse([key], settings.issuer, settings.audience);
    const jwks = createLocalJWKSet(JSON.parse(published.jwksJson) as Parameters<typeof createLocalJWKSet>[0]);
    const { payload } = await jwtVerify(token, jwks, {
      algorithms: ["EdDSA"],
      typ: "at+jwt",
      issuer: "platform-auth",
      audience: "platform-api",
      currentDate: new Date(1_700_000_060_000),
    });
    expect(payload).toMatchObject({
      sub: subject.keyId,
      client_id: subject.keyId,
      scope: "data:read intents:read",
      tier: "free",
      kver: 2,
    });
    expect(payload.exp! - payload.iat!).toBe(900);
    expect(typeof payload.jti).toBe("string");
    // Never the private half.
    expect(published.jwksJson).not.toContain('"d"');
    expect(published.keys[0]).toEqual({
      kid: key.kid,
      kty: "OKP",
      crv: "Ed25519",
      x: key.publicJwk.x,
      alg: "EdDSA",
      use: "sig",
    });
    expect(published).toMatchObject({ issuer: "platform-auth", audience: "platform-api", cacheMaxAgeSeconds: 60 });
  });

  it("get a fresh jti each time", async () => {
    const key = parseSigningKeyFile(JSON.stringify(generateSigningKeyFile(new Date(0))));
    const [a, b] = await Promise.all([
      issueAccessToken(subject, settings, key),
      issueAccessToken(subject, settings, key),
    ]);
    const jti = (token: string) =>
      (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { jti: string }).jti;
    expect(jti(a)).not.toBe(jti(b));
  });
});
