import { type ApiKey, ApiKeyStatus } from "@platform/proto/auth/v1/auth";
import type { KeyKind } from "./keyKinds.js";

/** An API key as the registry holds it (the fold of its events). */
export interface ApiKeyRecord {
  id: string;
  name: string;
  scopes: string[];
  tier: string;
  /** keyKinds.ts: a server key (`sk_` secret) or a browser key (`pk_`, bound to allowedOrigins). */
  kind: KeyKind;
  /** A browser key's origins; empty for a server key. */
  allowedOrigins: string[];
  status: "active" | "revoked";
  secretHmac: string;
  pepperId: string;
  /** 1 at creation, +1 per rotation. Access tokens carry it as `kver`. */
  secretVersion: number;
  createdAt: string;
  revokedAt?: string;
  secretRotatedAt?: string;
}

/** A refresh token as the registry holds it, under the HMAC of the token. */
export interface RefreshTokenRecord {
  keyId: string;
  /** The key's secret version when the token was issued. */
  secretVersion: number;
  /** RFC 3339. */
  expiresAt: string;
  /**
   * A fingerprint of the address (bucket) it was last used or issued from (refreshTokenUse.ts):
   * in Redis only, never in Kafka, so absent after a rebuild.
   */
  seenFrom?: string;
}

/** The fields of `auth:key:{<id>}` (registry/keys.ts); absent optional fields are not written. */
export function apiKeyToHash(record: ApiKeyRecord): Record<string, string> {
  const hash: Record<string, string> = {
    name: record.name,
    scopes: record.scopes.join(" "),
    tier: record.tier,
    status: record.status,
    secretHmac: record.secretHmac,
    pepperId: record.pepperId,
    secretVersion: String(record.secretVersion),
    createdAt: record.createdAt,
  };
  if (record.revokedAt !== undefined) hash.revokedAt = record.revokedAt;
  if (record.secretRotatedAt !== undefined) hash.secretRotatedAt = record.secretRotatedAt;
  // Server keys write neither field, so their hashes are as before kinds existed.
  if (record.kind === "browser") {
    hash.kind = record.kind;
    hash.origins = record.allowedOrigins.join(" ");
  }
  return hash;
}

/** Reads a key hash back; undefined for a missing (empty) or damaged hash, which counts as no key. */
export function apiKeyFromHash(id: string, hash: Record<string, string>): ApiKeyRecord | undefined {
  const { name, scopes, tier, status, secretHmac, pepperId, secretVersion, createdAt } = hash;
  if (
    name === undefined ||
    scopes === undefined ||
    tier === undefined ||
    secretHmac === undefined ||
    pepperId === undefined
  )
    return undefined;
  if (createdAt === undefined || (status !== "active" && status !== "revoked")) return undefined;
  const version = Number(secretVersion);
  if (!Number.isInteger(version) || version < 1) return undefined;
  const kind = hash.kind === undefined ? "server" : hash.kind;
  const allowedOrigins = (hash.origins ?? "").split(" ").filter((origin) => origin.length > 0);
  // A browser key without its origins would be answered nowhere; an unknown kind, nowhere safe.
  if ((kind !== "server" && kind !== "browser") || (kind === "browser" && allowedOrigins.length === 0))
    return undefined;
  const record: ApiKeyRecord = {
    id,
    name,
    scopes: scopes.split(" ").filter((scope) => scope.length > 0),
    tier,
    kind,
    allowedOrigins,
    status,
    secretHmac,
    pepperId,
    secretVersion: version,
    createdAt,
  };
  if (hash.revokedAt !== undefined) record.revokedAt = hash.revokedAt;
  if (hash.secretRotatedAt !== undefined) record.secretRotatedAt = hash.secretRotatedAt;
  return record;
}

export function refreshTokenToHash(record: RefreshTokenRecord): Record<string, string> {
  const hash: Record<string, string> = {
    keyId: record.keyId,
    secretVersion: String(record.secretVersion),
    expiresAt: record.expiresAt,
  };
  if (record.seenFrom !== undefined) hash.seenFrom = record.seenFrom;
  return hash;
}

export function refreshTokenFromHash(hash: Record<string, string>): RefreshTokenRecord | undefined {
  const { keyId, secretVersion, expiresAt, seenFrom } = hash;
  const version = Number(secretVersion);
  if (keyId === undefined || expiresAt === undefined || !Number.isInteger(version)) return undefined;
  return { keyId, secretVersion: version, expiresAt, ...(seenFrom === undefined ? {} : { seenFrom }) };
}

/** The admin view of a key: never the secret's HMAC. */
export function apiKeyToProto(record: ApiKeyRecord): ApiKey {
  return {
    id: record.id,
    name: record.name,
    scopes: [...record.scopes],
    tier: record.tier,
    status: record.status === "active" ? ApiKeyStatus.API_KEY_STATUS_ACTIVE : ApiKeyStatus.API_KEY_STATUS_REVOKED,
    createdAt: record.createdAt,
    revokedAt: record.revokedAt,
    secretRotatedAt: record.secretRotatedAt,
    kind: record.kind,
    allowedOrigins: [...record.allowedOrigins],
  };
}
