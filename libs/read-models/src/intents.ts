import { INTENTS_PREFIX } from "./hashTags.js";
/**
 * The intents read model in Redis (`rm:{intents}:` prefix), written only by the projector's `intents`
 * projection (consumer group `projector-intents`, topics chain.intents.v1 and
 * intents.notifications.v1) and read by intents-gateway, both through this module (`intentsKeys`
 * and `versionOf` for the writer, `intentsReadKeys` for readers). Stored data is named by these
 * strings: intents.test.ts pins them.
 *
 * Reads (intents-gateway):
 *
 * - `rm:{intents}:order:<orderId>` string: protobuf `platform.intents.v1.IntentRecord`
 *   (`IntentRecord.encode(record).finish()`). orderId is 0x-prefixed lowercase hex. Present while
 *   the order's `Open` stands (a reorganisation that removes the Open deletes it), or, for a
 *   notified transaction not yet seen on chain whose notification named the order id, the
 *   SUBMITTED / REVERTED / DROPPED record of that transaction (order_id set).
 * - `rm:{intents}:order:tx:<chainId>:<txHash>` string: the SUBMITTED / REVERTED / DROPPED record of a
 *   notified transaction while no Open of it stands (order_id empty, or the notified order id, in
 *   which case the same record is also under that order id, and only that one is listed).
 * - `rm:{intents}:tx:<originChainId>:<txHash>` set of orderIds: the orders whose standing Open came
 *   from that transaction (a member means the transaction was mined and opened it). txHash is
 *   lowercase everywhere.
 * - `rm:{intents}:txstate:<originChainId>:<txHash>` hash, for notified transactions only:
 *     `status`      NOTIFIED | SUCCEEDED | REVERTED | DROPPED (SUCCEEDED as soon as an Open of the
 *                   transaction stands, whatever the receipt lookup said so far),
 *     `userAddress` EIP-55, `notifiedAt` RFC 3339, `resolvedAt` RFC 3339 (once resolved),
 *     `orderId`     the notified order id, when the notification had one,
 *     `resolution`  the ingestor's last word, SUCCEEDED | REVERTED | DROPPED (absent before),
 *     `orderIds`    comma-separated orderIds of the receipt's Open logs (SUCCEEDED only).
 * - `rm:{intents}:user:<EIP-55 address>:pending` zset: records not final (SUBMITTED, OPEN, FILLED,
 *   EXPIRED, DROPPED). Member = the order key suffix (`<orderId>` or `tx:<chainId>:<txHash>`),
 *   score = ms since the epoch of the first sighting (the notification, or the Open's block time,
 *   whichever came first). SETTLED, REFUNDED and REVERTED records leave it.
 * - `rm:{intents}:user:<EIP-55 address>:expired` zset: EXPIRED orders (their Open stands, the
 *   destination chain's head time passed fill_deadline, no fill, settle or refund stands).
 *   Member = orderId, score = fill_deadline (unix seconds). refundable_at is in the record.
 * - `rm:{intents}:head:<chainId>` hash, the mirror's `as_of` per chain (from ChainHeadAdvanced):
 *   `blockNumber`, `blockHash`, `timestamp` (RFC 3339, the block's own time),
 *   `safeBlockNumber`, `finalizedBlockNumber` (absent when the chain reported none).
 *
 * About the stored records: each step's ChainRef carries the finality known when the record last
 * changed; the projection rewrites a record when its steps become safe or finalized (see the
 * `unsafe` and `unfinalized` indexes below), so it is current within one head event. `as_of` in a
 * record is the heads at its last change: a reader wanting the current `as_of` takes the head hashes.
 * `refundable_at` = fill_deadline + the settler's REFUND_GRACE, which the projection takes from its
 * configuration (INTENTS_REFUND_GRACE_SECONDS; FullSettler fixes it at deployment).
 *
 * Projection state (not for readers):
 *
 * - `rm:{intents}:events:<orderId>` string, binary (the projector's intents/orderState.ts serializeOrderState): byte 0x02,
 *   the notified transaction that named the order (length-prefixed `<chainId>:<txHash>`, empty when
 *   none), then the order's standing chain events in the order applied, each its record's protobuf
 *   IntentsChainEvent as published, length-prefixed (varint lengths). An event's identity
 *   `<chainId>:<blockHash>:<txHash>:<logIndex>` is its ChainRef's. Records are derived from it, so
 *   a ChainEventRemoved takes exactly that event back out. The JSON of the first version (events
 *   as base64 with their identities) is still read.
 * - `rm:{intents}:deadlines:<destinationChainId>` zset: orders OPEN or EXPIRED, score fill_deadline;
 *   a head event looks up only the deadlines its time step crossed.
 * - `rm:{intents}:unsafe:<chainId>` / `rm:{intents}:unfinalized:<chainId>` zsets: orders with a step on
 *   that chain still at `latest` / below `finalized`, score = that step's lowest block number; a
 *   head event rewrites the orders its safe / finalized numbers reached.
 * - `rm:{intents}:expiry:<destinationChainId>` string: the head time (unix s) up to which OPEN /
 *   EXPIRED statuses were brought in line; a head step re-derives only deadlines between it and
 *   the new head time.
 * - `rm:{intents}:chains` set of chain ids with a head.
 * - `rm:{intents}:offset:<topic>:<partition>` the last applied offset of that partition, written in
 *   the same atomic commit (a Lua script, @platform/store versionedCommit) as the changes it covers.
 * - `rm:{intents}:versions` hash, field = what was written (`versionOf`: `o:<orderId>` for an order's
 *   record and events, `t:<chainId>:<txHash>` for a transaction's state, set and placeholder, the
 *   key itself for heads, the chain set, watermarks and the deadline and finality indexes), value =
 *   how many commits wrote it: the commit script refuses a transaction when something it read has
 *   been written since (optimistic concurrency between projectors, e.g. a rebalance overlap or two
 *   partitions touching one order). The users' pending and expired lists are never read by the
 *   projection, so they have no version.
 * - `rm:{intents}:projection` marker, set when the projection (re)starts. Its absence means Redis
 *   lost the projection; the projector then replays both topics from offset 0.
 *
 * After each commit the projection publishes `readmodel.changed.intents` on NATS:
 * `{orderKeys: string[], users: string[], transactions: string[], truncated: boolean}` (order key
 * suffixes, EIP-55 users, `<chainId>:<txHash>`; lists cut at 500 entries, then truncated=true).
 */
export const intentsKeys = {
  /** `suffix` is an orderId or `tx:<chainId>:<txHash>` (placeholderSuffix). */
  order: (suffix: string) => `${INTENTS_PREFIX}order:${suffix}`,
  events: (orderId: string) => `${INTENTS_PREFIX}events:${orderId}`,
  tx: (chainId: string, txHash: string) => `${INTENTS_PREFIX}tx:${chainId}:${txHash}`,
  txState: (chainId: string, txHash: string) => `${INTENTS_PREFIX}txstate:${chainId}:${txHash}`,
  pending: (userAddress: string) => `${INTENTS_PREFIX}user:${userAddress}:pending`,
  expired: (userAddress: string) => `${INTENTS_PREFIX}user:${userAddress}:expired`,
  head: (chainId: string) => `${INTENTS_PREFIX}head:${chainId}`,
  chains: `${INTENTS_PREFIX}chains`,
  deadlines: (destinationChainId: string) => `${INTENTS_PREFIX}deadlines:${destinationChainId}`,
  expiry: (destinationChainId: string) => `${INTENTS_PREFIX}expiry:${destinationChainId}`,
  unsafe: (chainId: string) => `${INTENTS_PREFIX}unsafe:${chainId}`,
  unfinalized: (chainId: string) => `${INTENTS_PREFIX}unfinalized:${chainId}`,
  offset: (topic: string, partition: number) => `${INTENTS_PREFIX}offset:${topic}:${partition}`,
  versions: `${INTENTS_PREFIX}versions`,
  marker: `${INTENTS_PREFIX}projection`,
} as const;

/**
 * Prefixes that make an order's or a transaction's keys and version name from its id (the orderId,
 * or `<chainId>:<txHash>` as txId makes it): `prefix + id` equals the key of `intentsKeys` and the
 * name of `orderVersion` / `txVersion`. For reads that pass ids, not every key.
 */
export const idPrefixes = {
  order: { version: "o:", events: `${INTENTS_PREFIX}events:`, record: `${INTENTS_PREFIX}order:` },
  tx: {
    version: "t:",
    placeholder: `${INTENTS_PREFIX}order:tx:`,
    state: `${INTENTS_PREFIX}txstate:`,
    orders: `${INTENTS_PREFIX}tx:`,
  },
} as const;

/** The order key suffix of a notified transaction's record when the notification named no order. */
export const placeholderSuffix = (chainId: string, txHash: string) => `tx:${chainId}:${txHash}`;

/** `<chainId>:<txHash>`: how a transaction is named in the projection (and the notification topic's key). */
export const txId = (chainId: string, txHash: string) => `${chainId}:${txHash.toLowerCase()}`;

/** The version name of an order's keys (its record and events). */
export const orderVersion = (orderId: string) => `o:${orderId}`;
/** The version name of a transaction's keys (`<chainId>:<txHash>`: its state, order set and placeholder record). */
export const txVersion = (tx: string) => `t:${tx}`;

const PREFIXES: readonly [prefix: string, name: (rest: string) => string | undefined][] = [
  [`${INTENTS_PREFIX}events:`, orderVersion],
  [
    `${INTENTS_PREFIX}order:`,
    (suffix) => (suffix.startsWith("tx:") ? txVersion(suffix.slice(3)) : orderVersion(suffix)),
  ],
  [`${INTENTS_PREFIX}txstate:`, txVersion],
  [`${INTENTS_PREFIX}tx:`, txVersion],
  [`${INTENTS_PREFIX}user:`, () => undefined],
  // The change log (libs/read-models changeLogs.ts) is only appended to, never read by the projection.
  [`${INTENTS_PREFIX}changes`, () => undefined],
];

/**
 * The version name a key counts under in `rm:{intents}:versions` (see above), or undefined for keys
 * the projection never reads (the users' lists).
 */
export function versionOf(key: string): string | undefined {
  for (const [prefix, name] of PREFIXES) if (key.startsWith(prefix)) return name(key.slice(prefix.length));
  return key;
}

/**
 * The keys readers take from caller-given ids: order ids and transaction hashes are lower-cased,
 * as the projection stores them; user addresses are EIP-55 as given.
 */
export const intentsReadKeys = {
  order: (orderId: string) => intentsKeys.order(orderId.toLowerCase()),
  txOrder: (chainId: string, txHash: string) => intentsKeys.order(placeholderSuffix(chainId, txHash.toLowerCase())),
  txOrders: (chainId: string, txHash: string) => intentsKeys.tx(chainId, txHash.toLowerCase()),
  txState: (chainId: string, txHash: string) => intentsKeys.txState(chainId, txHash.toLowerCase()),
  userPending: intentsKeys.pending,
  userExpired: intentsKeys.expired,
  head: intentsKeys.head,
  marker: intentsKeys.marker,
} as const;

/** A pending-zset member names an order, or a notified transaction with no order id yet. */
export function recordKeyOfMember(member: string): string {
  const tx = /^tx:(\d+):(0x[0-9a-fA-F]{64})$/.exec(member);
  return tx ? intentsReadKeys.txOrder(tx[1]!, tx[2]!) : intentsReadKeys.order(member);
}
