import { DATA_PREFIX, INTENTS_PREFIX } from "./hashTags.js";
/**
 * The read models' change logs: a Redis stream per projection, appended in the same atomic commit
 * as the change it records, so a reader that resumes from an entry id sees every later change once
 * and in commit order (NATS signals only say "look now": they may be lost). Stream ids are Redis's
 * own (`<ms>-<seq>`, increasing), which makes them the public, resumable positions of the event
 * streams. Trimmed to about `maxLength` entries: a position older than the first entry left can no
 * longer be resumed exactly, and readers say so.
 *
 * A projection that loses its Redis rebuilds its log with new, later ids: a position from before
 * then resumes at the start of the rebuilt log (every change again, none missing).
 */
export const intentsChangeLog = {
  key: `${INTENTS_PREFIX}changes`,
  maxLength: 100_000,
  /**
   * Fields of an entry: `o` the record's key suffix (an orderId, or `tx:<chainId>:<txHash>` for a
   * notified transaction that opened no order), `u` its user (EIP-55, empty when unknown), `r` the
   * protobuf IntentRecord as stored, or empty when the record was removed (a reorganisation), `s`
   * "1" when the commit changed the record's status (or made or removed the record), else "0" (a
   * step became final, the notification was linked).
   */
  fields: { key: "o", user: "u", record: "r", statusChanged: "s" },
} as const;

/**
 * The data read models' change log, appended by the accounts, market and subnets projections in
 * their commits: what `GET /data/v1/events` streams.
 */
export const dataChangeLog = {
  key: `${DATA_PREFIX}changes`,
  maxLength: 100_000,
  /**
   * Fields of an entry: `k` its kind. A `head` (the read model's `as_of` moved) has `m` the read
   * model (accounts, market or subnets) and its new as_of as text: `c` chain id, `n` block number,
   * `h` block hash, `t` block time (RFC 3339). A `pool` has `r`, a PoolSnapshot's protobuf bytes, a
   * `price` `r`, a PriceObserved's (events/v1).
   */
  fields: {
    kind: "k",
    readModel: "m",
    chainId: "c",
    blockNumber: "n",
    blockHash: "h",
    timestamp: "t",
    bytes: "r",
  },
} as const;

export type DataChangeKind = "head" | "pool" | "price";
