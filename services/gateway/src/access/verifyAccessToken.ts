import { AppError } from "@platform/errors";
import { type JWTPayload, errors as joseErrors, jwtVerify } from "jose";
import type { SigningKeys } from "./signingKeys.js";

/** What the gateway needs from a verified access token. */
export interface AccessClaims {
  keyId: string;
  scopes: ReadonlySet<string>;
  tier: string;
  /** The key's secret version at issue; a rotation since makes the token invalid. */
  secretVersion: number;
  /** Expiry, epoch seconds. */
  expiresAt: number;
  /**
   * A browser key's token (claims `kind: "browser"` and `origins`): the origins a request with it
   * may come from (accessGuard.ts refuses any other Origin, or none). Absent for a server key.
   */
  allowedOrigins?: readonly string[];
}

export type TokenVerdict = { ok: true; claims: AccessClaims } | { ok: false; reason: string };

export interface TokenVerifier {
  verify(token: string): Promise<TokenVerdict>;
}

const KEY_ID = /^ak_[0-9A-Za-z]{22}$/;

/**
 * Verifies access tokens locally: EdDSA only (so `alg: none` and HS256-with-the-public-key are
 * refused by construction), `typ: at+jwt`, a `kid` auth published, issuer, audience and expiry
 * with a small clock leeway. Verified tokens are remembered until they expire, so a client
 * reusing its token costs one map lookup instead of a signature check.
 */
export function createTokenVerifier(
  keys: SigningKeys,
  options: { clockToleranceSeconds: number; cacheSize?: number },
): TokenVerifier {
  const cacheSize = options.cacheSize ?? 10_000;
  const verified = new Map<string, AccessClaims>();

  const remember = (token: string, claims: AccessClaims) => {
    if (verified.size >= cacheSize) {
      // Map iteration is insertion order: dropping the oldest entry keeps the cache bounded.
      const oldest = verified.keys().next().value;
      if (oldest !== undefined) verified.delete(oldest);
    }
    verified.set(token, claims);
  };

  return {
    async verify(token) {
      const nowSeconds = Date.now() / 1000;
      const cached = verified.get(token);
      if (cached) {
        if (cached.expiresAt + options.clockToleranceSeconds > nowSeconds) return { ok: true, claims: cached };
        verified.delete(token);
        return { ok: false, reason: "the token has expired" };
      }
      // Auth unreachable with nothing cached is an outage (503), not a bad token: let it propagate.
      const [issuer, audience] = await Promise.all([keys.issuer(), keys.audience()]);
      try {
        const { payload } = await jwtVerify(
          token,
          async (header) => {
            if (typeof header.kid !== "string") throw new joseErrors.JWKSNoMatchingKey();
            const key = await keys.keyFor(header.kid);
            if (!key) throw new joseErrors.JWKSNoMatchingKey();
            return key;
          },
          {
            algorithms: ["EdDSA"],
            typ: "at+jwt",
            issuer,
            audience,
            clockTolerance: options.clockToleranceSeconds,
            requiredClaims: ["exp", "iat", "sub"],
          },
        );
        const claims = claimsOf(payload);
        if (!claims) return { ok: false, reason: "the token's claims are malformed" };
        remember(token, claims);
        return { ok: true, claims };
      } catch (error) {
        if (error instanceof AppError) throw error;
        return { ok: false, reason: reasonOf(error) };
      }
    },
  };
}

function claimsOf(payload: JWTPayload): AccessClaims | undefined {
  const { sub, scope, tier, kver, exp } = payload as JWTPayload & { scope?: unknown; tier?: unknown; kver?: unknown };
  if (typeof sub !== "string" || !KEY_ID.test(sub)) return undefined;
  if (typeof scope !== "string" || typeof tier !== "string" || typeof kver !== "number" || typeof exp !== "number")
    return undefined;
  const claims: AccessClaims = {
    keyId: sub,
    scopes: new Set(scope.split(" ").filter(Boolean)),
    tier,
    secretVersion: kver,
    expiresAt: exp,
  };
  const binding = originBinding(payload);
  if (binding === "malformed") return undefined;
  if (binding !== undefined) claims.allowedOrigins = binding;
  return claims;
}

/**
 * A browser key's origins; undefined for a server key's token (no `kind`). A `kind` this gateway
 * does not know, or a browser token without a list of strings, is malformed: refused rather than
 * read as a server key's token, which no origin would bind.
 */
function originBinding(payload: JWTPayload): readonly string[] | "malformed" | undefined {
  const { kind, origins } = payload as JWTPayload & { kind?: unknown; origins?: unknown };
  if (kind === undefined) return origins === undefined ? undefined : "malformed";
  if (kind !== "browser" || !Array.isArray(origins) || origins.length === 0) return "malformed";
  return origins.every((origin) => typeof origin === "string") ? (origins as string[]) : "malformed";
}

/** A short, safe reason for the WWW-Authenticate error_description; never echoes the token. */
function reasonOf(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return "the token has expired";
  if (error instanceof joseErrors.JWKSNoMatchingKey) return "the token was not signed by a known key";
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return "the token's signature is invalid";
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `the token's ${error.claim} claim is not accepted`;
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return "the token's algorithm is not accepted";
  if (error instanceof joseErrors.JOSEError) return "the token is malformed";
  return "the token could not be verified";
}
