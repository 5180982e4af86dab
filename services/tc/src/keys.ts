/**
 * The tc service's Redis keyspace (service state, `tc:` prefix).
 *
 * Projection of `tc.acceptances.v1` (rebuilt from Kafka when lost):
 *
 * - `tc:wallet:<EIP-55 address>` hash: `acceptedVersion` (integer), `acceptedAt` (RFC 3339) — the
 *   wallet's latest acceptance (the last TermsAccepted of that wallet in its partition).
 * - `tc:offset:<topic>:<partition>` the last offset of that partition whose effect is stored,
 *   written in the same MULTI/EXEC as the wallets it covers.
 * - `tc:projection` marker string: `rebuilding:<uuid>` while a replay from offset 0 catches up,
 *   `complete` once it has. Its absence means Redis lost the projection (FLUSHALL, a fresh
 *   server): tc restarts its consumer, which finds no stored offsets and replays the topic from
 *   offset 0. Reads answer UNAVAILABLE unless it is `complete` (projectionSupervisor.ts, superviseProjection in @platform/bus).
 *
 * Ephemeral, never rebuilt:
 *
 * - `tc:nonce:<nonce>` string: the EIP-55 wallet the nonce was issued to; expires after
 *   NONCE_TTL_SECONDS and is deleted (GETDEL) by the first Accept naming it.
 */
export const tcKeys = {
  wallet: (checksummedAddress: string) => `tc:wallet:${checksummedAddress}`,
  offset: (topic: string, partition: number) => `tc:offset:${topic}:${partition}`,
  marker: "tc:projection",
  nonce: (nonce: string) => `tc:nonce:${nonce}`,
} as const;
