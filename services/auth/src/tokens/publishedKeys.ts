import type { GetSigningKeysResponse, SigningKey as PublishedKey } from "@platform/proto/auth/v1/auth";
import type { SigningKey } from "./signingKeyFile.js";

/** How long a verifier may keep the answer. Short beside the lead time an operator gives a new key. */
export const SIGNING_KEYS_CACHE_SECONDS = 60;

/** GetSigningKeys: the public half of every key in the folder, as proto fields and as a JWKS. */
export function signingKeysResponse(
  keys: readonly SigningKey[],
  issuer: string,
  audience: string,
): GetSigningKeysResponse {
  const published: PublishedKey[] = keys.map((key) => ({
    kid: key.kid,
    kty: key.publicJwk.kty,
    crv: key.publicJwk.crv,
    x: key.publicJwk.x,
    alg: "EdDSA",
    use: "sig",
  }));
  return {
    keys: published,
    jwksJson: JSON.stringify({
      keys: published.map(({ kid, kty, crv, x, alg, use }) => ({ kid, kty, crv, x, alg, use })),
    }),
    issuer,
    audience,
    cacheMaxAgeSeconds: SIGNING_KEYS_CACHE_SECONDS,
  };
}
