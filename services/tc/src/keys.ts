/**
 * The tc service's Redis keyspace (service state, `tc:` prefix).
 *
 * Projection of `tc.acceptances.v1` (rebuilt from Kafka when lost), every key under the hash tag
 * `{tc}` so that a Redis Cluster runs its commits (one MULTI/EXEC of wallets and the partition's
 * offset) and its reads (a wallet with the marker, one pipeline) on one slot, and so that a failover
 * that loses the projection loses its marker with it and the projection replays:
 *
 * - `tc:{tc}:wallet:<EIP-55 address>` hash: `acceptedVersion` (integer), `acceptedAt` (RFC 3339) —
 *   the wallet's latest acceptance (the last TermsAccepted of that wallet in its partition).
 * - `tc:{tc}:offset:<topic>:<partition>` the last offset of that partition whose effect is stored,
 *   written in the same MULTI/EXEC as the wallets it covers.
 * - `tc:{tc}:projection` marker string: `rebuilding:<uuid>` while a replay from offset 0 catches up,
 *   `complete` once it has. Its absence means Redis lost the projection (FLUSHALL, a fresh server, a
 *   failover that lost writes): tc restarts its consumer, which finds no stored offsets and replays
 *   the topic from offset 0. Reads answer UNAVAILABLE unless it is `complete`
 *   (projectionSupervisor.ts, superviseProjection in @platform/bus).
 *
 * The untagged layout before 2 Dec 2026 (`tc:wallet:*`, `tc:offset:*`, `tc:projection`) is not
 * read: a tc of this layout finds no marker, replays the topic, and the old keys can be deleted.
 *
 * Ephemeral, never rebuilt, one key per command (so any slot):
 *
 * - `tc:nonce:<nonce>` string: the EIP-55 wallet the nonce was issued to; expires after
 *   NONCE_TTL_SECONDS and is deleted (GETDEL) by the first Accept naming it.
 */
const PROJECTION = "tc:{tc}:";

export const tcKeys = {
  wallet: (checksummedAddress: string) => `${PROJECTION}wallet:${checksummedAddress}`,
  offset: (topic: string, partition: number) => `${PROJECTION}offset:${topic}:${partition}`,
  marker: `${PROJECTION}projection`,
  nonce: (nonce: string) => `tc:nonce:${nonce}`,
} as const;
