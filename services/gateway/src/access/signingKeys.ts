import { Metadata } from "@grpc/grpc-js";
import { callUnary } from "@platform/grpc";
import type { AuthServiceClient } from "@platform/proto/auth/v1/auth";
import { type CryptoKey, importJWK, type JWK } from "jose";

export interface SigningKeys {
  /** The public key for a `kid`, fetching auth's key set again (at most once per cooldown) when it is unknown. */
  keyFor(kid: string): Promise<CryptoKey | undefined>;
  issuer(): Promise<string>;
  audience(): Promise<string>;
}

interface KeySet {
  keys: Map<string, CryptoKey>;
  issuer: string;
  audience: string;
  fetchedAt: number;
  maxAgeMs: number;
}

/**
 * Auth's published signing keys, cached. A new key is published before auth signs with it, so a
 * cache refreshed every `cache_max_age` knows it in time; an unknown `kid` triggers one early
 * refetch, rate limited so a flood of forged kids cannot hammer auth. Past its age the set is
 * refreshed in the background while requests go on with the keys known: an auth outage never
 * holds a request up, and a failed refresh is tried again after `retryMs`, not on every request.
 */
export function cachedSigningKeys(
  auth: Pick<AuthServiceClient, "getSigningKeys">,
  options: { cooldownMs?: number; retryMs?: number } = {},
): SigningKeys {
  const cooldownMs = options.cooldownMs ?? 5_000;
  const retryMs = options.retryMs ?? 1_000;
  let current: KeySet | undefined;
  let inFlight: Promise<KeySet> | undefined;
  let lastForcedFetch = 0;
  let nextRefreshAt = 0;

  const fetchKeys = (): Promise<KeySet> => {
    inFlight ??= (async () => {
      try {
        const response = await callUnary(auth as AuthServiceClient, auth.getSigningKeys, {}, new Metadata());
        const keys = new Map<string, CryptoKey>();
        for (const key of response.keys) {
          if (key.kty !== "OKP" || key.crv !== "Ed25519" || key.alg !== "EdDSA") continue;
          const jwk: JWK = { kty: key.kty, crv: key.crv, x: key.x, alg: key.alg, use: key.use };
          keys.set(key.kid, (await importJWK(jwk, "EdDSA")) as CryptoKey);
        }
        current = {
          keys,
          issuer: response.issuer,
          audience: response.audience,
          fetchedAt: Date.now(),
          maxAgeMs: Math.max(1, response.cacheMaxAgeSeconds) * 1000,
        };
        return current;
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  };

  const fresh = async (): Promise<KeySet> => {
    // Nothing known yet (start-up): the request waits for the first set.
    if (current === undefined) return fetchKeys();
    const now = Date.now();
    if (now - current.fetchedAt >= current.maxAgeMs && now >= nextRefreshAt && inFlight === undefined) {
      nextRefreshAt = now + retryMs;
      // Auth away: keep verifying with the keys we have; the next try comes after retryMs.
      fetchKeys().catch(() => undefined);
    }
    return current;
  };

  return {
    async keyFor(kid) {
      const set = await fresh();
      const known = set.keys.get(kid);
      if (known) return known;
      if (Date.now() - lastForcedFetch < cooldownMs) return undefined;
      lastForcedFetch = Date.now();
      return (await fetchKeys()).keys.get(kid);
    },
    issuer: async () => (await fresh()).issuer,
    audience: async () => (await fresh()).audience,
  };
}
