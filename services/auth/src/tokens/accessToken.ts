import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import type { KeyKind } from "../registry/keyKinds.js";
import type { SigningKey } from "./signingKeyFile.js";

/** Who a token is for: the authenticated key as the registry knows it. */
export interface AccessTokenSubject {
  keyId: string;
  scopes: readonly string[];
  tier: string;
  /** The key's secret version: the gateway refuses the token once the stored version differs. */
  secretVersion: number;
  /** Absent: a server key. */
  kind?: KeyKind;
  /** A browser key's allowed origins. */
  allowedOrigins?: readonly string[];
}

export interface AccessTokenSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

/** RFC 9068-style access-token claims (see research/platform.md §1.4). */
export interface AccessTokenClaims {
  iss: string;
  aud: string;
  sub: string;
  client_id: string;
  scope: string;
  tier: string;
  kver: number;
  iat: number;
  exp: number;
  jti: string;
  /**
   * `browser` on a browser key's token, with `origins` its allowed origins: the gateway refuses
   * the token from any other Origin (403 KEY_ORIGIN_NOT_ALLOWED). Both absent on a server key's.
   */
  kind?: "browser";
  origins?: string[];
  [claim: string]: unknown;
}

/** The claims of a token issued at `nowSeconds`. Pure, so the profile is testable as data. */
export function accessTokenClaims(
  subject: AccessTokenSubject,
  settings: AccessTokenSettings,
  nowSeconds: number,
  jti: string,
): AccessTokenClaims {
  return {
    iss: settings.issuer,
    aud: settings.audience,
    sub: subject.keyId,
    client_id: subject.keyId,
    scope: subject.scopes.join(" "),
    tier: subject.tier,
    kver: subject.secretVersion,
    iat: nowSeconds,
    exp: nowSeconds + settings.ttlSeconds,
    jti,
    ...(subject.kind === "browser" ? { kind: "browser" as const, origins: [...(subject.allowedOrigins ?? [])] } : {}),
  };
}

/** Signs claims as a JWS with EdDSA, `typ: at+jwt` and the key's `kid`. */
export function signAccessToken(claims: AccessTokenClaims, key: SigningKey): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: "EdDSA", kid: key.kid, typ: "at+jwt" }).sign(key.privateKey);
}

/** Issues a token for the subject now. */
export function issueAccessToken(
  subject: AccessTokenSubject,
  settings: AccessTokenSettings,
  key: SigningKey,
  nowMs: number = Date.now(),
): Promise<string> {
  return signAccessToken(accessTokenClaims(subject, settings, Math.floor(nowMs / 1_000), randomUUID()), key);
}
