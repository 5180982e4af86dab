/**
 * The auth service's Redis keyspace (service state, `auth:` prefix). The gateway reads the key
 * records directly (status, scopes, tier, secretVersion) and runs its rate-limit script on them,
 * so these names are a contract: change them only together with services/gateway.
 *
 * Projection of `auth.api-keys.v1` (rebuilt from Kafka when lost):
 *
 * - `auth:key:{<keyId>}` hash, one per API key:
 *     `name`, `scopes` (space separated), `tier`, `status` (`active` | `revoked`),
 *     `secretHmac` (HMAC-SHA256(pepper, secret), lowercase hex), `pepperId`,
 *     `secretVersion` (integer: 1 at creation, +1 per rotation; access tokens carry it as `kver`),
 *     `createdAt`, and once they happened `revokedAt`, `secretRotatedAt` (RFC 3339).
 *   The braces are a Redis Cluster hash tag: the gateway's Lua script touches this key and
 *   `rl:{<keyId>}:…` together, which Cluster allows only within one slot.
 * - `auth:keys` set of every key id (for listing).
 * - `auth:refresh:<tokenHmac>` hash, one per refresh token: `keyId`, `secretVersion` (the key's
 *   version at issue), `expiresAt` (RFC 3339); PEXPIREAT at expiry, so expired tokens vanish.
 *   Written by the projection and, idempotently, by IssueToken itself (the record is immutable).
 * - `auth:offset:<topic>:<partition>` the last offset of that partition whose effect is stored,
 *   written in the same MULTI/EXEC as the records it covers.
 * - `auth:registry` marker string: `rebuilding:<uuid>` while a replay from offset 0 catches up,
 *   `complete` once it has. Its absence means Redis lost the projection (FLUSHALL, a fresh
 *   server); auth then restarts its consumer, which finds no stored offsets and replays the topic
 *   (superviseProjection in @platform/bus).
 *
 * Ephemeral, never rebuilt:
 *
 * - `auth:fail:addr:<address bucket>` counter of failed IssueToken attempts in the lockout window
 *   (TTL = window, from the first failure; it stops at the address's budget); an address bucket is
 *   an IPv4 address or an IPv6 /64 (issue/addressBucket.ts). Nothing is counted per key id, so
 *   failures with random ids add no key (issue/lockoutPolicy.ts).
 */
export const authKeys = {
  apiKey: (keyId: string) => `auth:key:{${keyId}}`,
  keySet: "auth:keys",
  refreshToken: (tokenHmac: string) => `auth:refresh:${tokenHmac}`,
  /** The key's live refresh tokens (their record keys), scored by expiry: the cap's bookkeeping (refreshTokenWrite.ts). */
  refreshTokensOfKey: (keyId: string) => `auth:refresh-of:{${keyId}}`,
  offset: (topic: string, partition: number) => `auth:offset:${topic}:${partition}`,
  marker: "auth:registry",
  grantsOfKey: (keyId: string, minute: number) => `auth:grants:{${keyId}}:${minute}`,
  failuresOfAddress: (address: string) => `auth:fail:addr:${address}`,
} as const;
