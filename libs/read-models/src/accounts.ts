import { DATA_PREFIX } from "./hashTags.js";
/**
 * The accounts read model in Redis (`rm:{data}:accounts:` prefix), written only by the projector's
 * `accounts` projection (consumer group `projector-accounts`, topic chain.network.v1: its
 * AccountActivity, BlockSeen and ChainEventRemoved records) and read by data-query's AccountsService: both import this layout.
 *
 * `<pk>` is the account's 0x-prefixed lowercase 32-byte public key. Scores are block times in unix
 * seconds; members start with the zero-padded block number, so Redis' (score, member) order is
 * chain order (block times never go down along a chain).
 *
 * - `rm:{data}:accounts:points:<pk>` zset, the account's balance after every block in which it had
 *   activity carrying balance_after (one point per block; the ingestor leaves balance_after out when
 *   it could not read it, and the standing point stays; a block without activity leaves the balance as it was, so the
 *   balance at any time is the newest point at or before it, and a history bucket shows the newest
 *   point at or before its end). Member `<block:12>|<blockHash>|<timeMs>|<base64 AccountBalance>`
 *   (protobuf `platform.events.v1.AccountBalance`, the activity's balance_after). The latest
 *   balance is the last member (`ZRANGE key -1 -1`). Kept for ever without a history database;
 *   with one, only the newest few (the projection's `pointsKept`), the rest read from PostgreSQL.
 * - `rm:{data}:accounts:txs:<pk>` zset, the account's activity in chain order. Member
 *   `<block:12>-<txIndex:6>-<logIndex+1:7>|<blockHash>|<activityId>|<direction>` (logIndex+1 is 0
 *   when the activity is no log, e.g. a plain transfer, so it sorts before the transaction's logs).
 *   The member is a stable position: a page cursor is (score, member), and new blocks only add
 *   members after the newest. The transaction count is its ZCARD.
 * - `rm:{data}:accounts:tx:<pk>` hash member -> base64 protobuf `platform.events.v1.AccountActivity`
 *   (balance_after left out: the points hold it).
 * - `rm:{data}:accounts:head` hash, the projection's `as_of`: `chainId`, `blockNumber`, `blockHash`,
 *   `timestamp` (RFC 3339, the block's own time): the newest block whose BlockSeen record every
 *   partition has applied, so every account's records up to it are in (it advances every block,
 *   with or without account activity, and a lagging partition holds it back). A reorganisation
 *   takes it back to the newest block still standing. Absent until every partition delivered one.
 *
 * Projection state (not for readers):
 *
 * - `rm:{data}:accounts:blocks:<partition>` zset of the newest 512 blocks the partition delivered (its
 *   BlockSeen records), score = block number, member = JSON `{chainId, blockNumber, blockHash,
 *   timestamp}`; the head is the oldest of the partitions' last members. A ChainEventRemoved of a
 *   BlockSeen drops its block (by number and hash; see head.ts for why not by range).
 * - `rm:{data}:accounts:offset:<topic>:<partition>` the last applied offset, written in the same MULTI/EXEC
 *   as the changes it covers.
 * - `rm:{data}:accounts:projection` marker, set when the projection (re)starts; its absence (FLUSHALL)
 *   makes the supervisor replay the topic from offset 0.
 *
 * A ChainEventRemoved of an AccountActivity (same key, so it follows the record it removes) takes
 * out the account's transactions at the removed ref's position and the balance point of the removed
 * block, both only when they carry the removed block's hash: the account's records move back.
 */
export const accountsKeys = {
  points: (publicKey: string) => `${DATA_PREFIX}accounts:points:${publicKey}`,
  txs: (publicKey: string) => `${DATA_PREFIX}accounts:txs:${publicKey}`,
  tx: (publicKey: string) => `${DATA_PREFIX}accounts:tx:${publicKey}`,
  head: `${DATA_PREFIX}accounts:head`,
  blocks: (partition: number) => `${DATA_PREFIX}accounts:blocks:${partition}`,
  offset: (topic: string, partition: number) => `${DATA_PREFIX}accounts:offset:${topic}:${partition}`,
  marker: `${DATA_PREFIX}accounts:projection`,
} as const;

/** Blocks kept in `rm:{data}:accounts:blocks` (how deep a reorganisation can take the head back exactly). */
export const BLOCKS_KEPT = 512;
