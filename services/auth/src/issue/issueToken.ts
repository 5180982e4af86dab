import { AppError, invalidArgument, unavailable } from "@platform/errors";
import type {
  ApiKeyGrant,
  IssueTokenRequest,
  IssueTokenResponse,
  RefreshTokenGrant,
} from "@platform/proto/auth/v1/auth";
import type { Redis } from "@platform/store";
import { isWellFormed, newCredential } from "../credentials/credentialFormat.js";
import { matchesStoredDigest } from "../credentials/digestCheck.js";
import type { Pepper } from "../credentials/pepper.js";
import type { ApiKeyRecord, RefreshTokenRecord } from "../registry/apiKeyRecord.js";
import {
  decideIssueRefreshToken,
  invalidCredentials,
  invalidRefreshToken,
  keyOriginNotAllowed,
} from "../registry/decide.js";
import type { EventPublisher } from "../registry/eventPublisher.js";
import { originAllowed, secretKindOf } from "../registry/keyKinds.js";
import { lookUpApiKey, lookUpRefreshToken, readApiKey, writeRefreshToken } from "../registry/readRegistry.js";
import type { RegistryStatus } from "../registry/registrySupervisor.js";
import { type AccessTokenSettings, issueAccessToken } from "../tokens/accessToken.js";
import type { SigningKeyStore } from "../tokens/signingKeyStore.js";
import { spendGrant } from "./grantBudget.js";
import type { Lockout } from "./lockout.js";
import type { RefreshTokenUses } from "./refreshTokenUse.js";

export interface TokenIssuerOptions {
  redis: Redis;
  publisher: EventPublisher;
  pepper: Pepper;
  signingKeys: SigningKeyStore;
  lockout: Lockout;
  registry: RegistryStatus;
  accessToken: AccessTokenSettings;
  refreshTokenTtlSeconds: number;
  /** Live refresh tokens kept per key (refreshTokenWrite.ts). */
  refreshTokensPerKey: number;
  /** Successful API_KEY grants per key per minute (grantBudget.ts). */
  grantsPerKeyPerMinute: number;
  /** Counts and logs a refresh token's use from a new address (refreshTokenUse.ts). */
  refreshTokenUses: RefreshTokenUses;
  /** Longest wait for Kafka to confirm a refresh token; 5 s by default (and never past the call's deadline). */
  publishTimeoutMs?: number;
}

/** IssueToken, for a call that must be answered by `deadline` (epoch ms). */
export type TokenIssuer = (request: IssueTokenRequest, deadline: number) => Promise<IssueTokenResponse>;

/**
 * POST /auth behind the gateway. Every credential failure is the same 401 INVALID_CREDENTIALS
 * (unknown id, wrong or malformed secret, revoked key, locked out), every refresh failure the
 * same 401 INVALID_REFRESH_TOKEN (unknown, expired, key revoked or rotated since, another key's,
 * locked out). A browser key (keyKinds.ts) with the right secret or refresh token but a request
 * Origin outside its list is 401 KEY_ORIGIN_NOT_ALLOWED, not counted as a failure; only a request without a grant or with empty fields is a 400. Never 403 or 429:
 * brute force is answered by slowing failures down (never a correct secret: it is checked first)
 * and, past a threshold, by refusing without a check (lockoutPolicy.ts).
 * 503 UNAVAILABLE when Redis is away, when Kafka does not take the refresh token in time, and
 * for a failed attempt while the registry is being rebuilt.
 */
export function tokenIssuer(options: TokenIssuerOptions): TokenIssuer {
  const { redis, publisher, pepper, signingKeys, lockout, registry } = options;
  const publishTimeoutMs = options.publishTimeoutMs ?? 5_000;

  /**
   * A failure while the registry is missing or still replaying may be a key not replayed yet:
   * it answers 503 and does not count towards a lockout, so a Redis loss cannot lock clients out.
   */
  const registryNotTrusted = (registryPresent: boolean): AppError | undefined => {
    if (!registryPresent) registry.poke();
    return registryPresent && registry.complete()
      ? undefined
      : unavailable("UNAVAILABLE", "the key registry is being rebuilt; try again shortly");
  };

  const accessTokenFor = (record: ApiKeyRecord) => signedAccessToken(signingKeys, options.accessToken, record);

  const withApiKey = async (
    grant: ApiKeyGrant,
    address: string | undefined,
    origin: string | undefined,
    deadline: number,
  ): Promise<IssueTokenResponse> => {
    if (grant.keyId === "" || grant.secret === "")
      throw invalidArgument("INVALID_REQUEST", "the API key id and secret are both required");
    // Past its budget an address costs one read: no lookup, no write, no wait.
    if (await lockout.overBudget(address)) throw invalidCredentials();
    const idWellFormed = isWellFormed("keyId", grant.keyId);

    // Shape and checksum first: garbage never reaches the registry. Past that, a known and an
    // unknown id take the same path (one lookup, one HMAC, one comparison, and for a failure the
    // address's counter). The secret is checked before any wait: only failures are held back.
    // A server key's secret is sk_, a browser key's pk_ (keyKinds.ts); either shape is looked up.
    const secretWellFormed = isWellFormed("secret", grant.secret) || isWellFormed("publishableSecret", grant.secret);
    const lookup = idWellFormed && secretWellFormed ? await lookUpApiKey(redis, grant.keyId) : undefined;
    const record = lookup?.value;
    const secretMatches =
      lookup !== undefined &&
      matchesStoredDigest(pepper, grant.secret, record && { digest: record.secretHmac, pepperId: record.pepperId }) &&
      record !== undefined &&
      isWellFormed(secretKindOf(record.kind), grant.secret);
    if (!secretMatches || record === undefined || record.status !== "active") {
      const untrusted = lookup && registryNotTrusted(lookup.registryPresent);
      if (untrusted) throw untrusted;
      await lockout.failed(address, deadline);
      throw invalidCredentials();
    }
    // The right pk_ secret from the wrong (or no) Origin: not a guess, so no lockout count; no grant spent.
    if (!originAllowed(record, origin)) throw keyOriginNotAllowed(origin);
    // Each grant is a refresh token (Redis) and an event (Kafka): a key's grants are bounded.
    await spendGrant(redis, record.id, options.grantsPerKeyPerMinute);

    const refreshToken = newCredential("refreshToken");
    const now = new Date();
    const decision = decideIssueRefreshToken(
      {
        keyId: record.id,
        tokenHmac: pepper.hmac(refreshToken),
        pepperId: pepper.id,
        now,
        ttlSeconds: options.refreshTokenTtlSeconds,
      },
      record,
    );
    if (decision instanceof AppError) throw decision;
    if (decision.event?.$case !== "refreshTokenIssued") throw new Error("a refresh-token decision gave another event");
    const issued = decision.event.value;
    // Kafka first (the token survives a lost Redis), then the record itself so it works at once.
    await publisher.publish(decision, Math.min(Date.now() + publishTimeoutMs, deadline - 300));
    await writeRefreshToken(
      redis,
      issued.tokenHmac,
      {
        keyId: issued.keyId,
        secretVersion: issued.secretVersion,
        expiresAt: issued.expiresAt,
        seenFrom: options.refreshTokenUses.fingerprint(address),
      },
      options.refreshTokensPerKey,
    );
    return {
      accessToken: await accessTokenFor(record),
      tokenType: "Bearer",
      expiresInSeconds: options.accessToken.ttlSeconds,
      refreshToken,
    };
  };

  const withRefreshToken = async (
    grant: RefreshTokenGrant,
    address: string | undefined,
    origin: string | undefined,
    deadline: number,
  ): Promise<IssueTokenResponse> => {
    if (grant.keyId === "" || grant.refreshToken === "")
      throw invalidArgument("INVALID_REQUEST", "the API key id and refresh token are both required");
    if (await lockout.overBudget(address)) throw invalidRefreshToken();
    const idWellFormed = isWellFormed("keyId", grant.keyId);

    const { record, token, registryPresent } = await validRefresh(redis, pepper, grant, idWellFormed);
    if (record === undefined || token === undefined) {
      const untrusted = registryPresent === undefined ? undefined : registryNotTrusted(registryPresent);
      if (untrusted) throw untrusted;
      await lockout.failed(address, deadline);
      throw invalidRefreshToken();
    }
    // A browser key's refresh token is held to the key's origins too.
    if (!originAllowed(record, origin)) throw keyOriginNotAllowed(origin);
    await options.refreshTokenUses.used(token.tokenHmac, token.record, address);
    // No new refresh token: the spec's REFRESH_TOKEN answer has no refresh_token field.
    return {
      accessToken: await accessTokenFor(record),
      tokenType: "Bearer",
      expiresInSeconds: options.accessToken.ttlSeconds,
    };
  };

  return async (request, deadline) => {
    const grant = request.grant;
    const address = request.clientAddress.trim() === "" ? undefined : request.clientAddress.trim();
    const origin = request.origin === "" ? undefined : request.origin;
    if (grant === undefined)
      throw invalidArgument("INVALID_REQUEST", "a grant is required: an API key or a refresh token");
    return grant.$case === "apiKey"
      ? withApiKey(grant.value, address, origin, deadline)
      : withRefreshToken(grant.value, address, origin, deadline);
  };
}

/**
 * The key a refresh token still stands for (record undefined when it stands for none), and
 * whether the registry was there to ask (undefined when the input was refused on its shape).
 */
async function validRefresh(
  redis: Redis,
  pepper: Pepper,
  grant: RefreshTokenGrant,
  idWellFormed: boolean,
): Promise<{
  record?: ApiKeyRecord;
  token?: { tokenHmac: string; record: RefreshTokenRecord };
  registryPresent?: boolean;
}> {
  if (!idWellFormed || !isWellFormed("refreshToken", grant.refreshToken)) return {};
  const tokenHmac = pepper.hmac(grant.refreshToken);
  const { value: token, registryPresent } = await lookUpRefreshToken(redis, tokenHmac);
  // Bound to the key it was issued to (RFC 6749 §10.4): presenting it for another key fails.
  if (token === undefined || token.keyId !== grant.keyId || !(Date.parse(token.expiresAt) > Date.now()))
    return { registryPresent };
  const record = await readApiKey(redis, grant.keyId);
  // A revocation or a rotation since issue ends the token.
  if (record === undefined || record.status !== "active" || record.secretVersion !== token.secretVersion)
    return { registryPresent };
  return { record, token: { tokenHmac, record: token }, registryPresent };
}

/** An access token for the key, with its kind and origins (a browser key's token is bound to them). */
async function signedAccessToken(
  signingKeys: SigningKeyStore,
  settings: AccessTokenSettings,
  record: ApiKeyRecord,
): Promise<string> {
  const key = signingKeys.signingKey();
  // Only after a reload went wrong (start-up insists on an active key); operators see the log.
  if (key === undefined) throw unavailable("UNAVAILABLE", "no signing key is active; try again shortly");
  const { id: keyId, scopes, tier, secretVersion, kind, allowedOrigins } = record;
  return issueAccessToken({ keyId, scopes, tier, secretVersion, kind, allowedOrigins }, settings, key);
}
