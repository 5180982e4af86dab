/**
 * The intents projection's Redis layout (written by the projector; read-only here). Hashes and
 * order ids are lowercase; user addresses are EIP-55.
 *
 * - `rm:intents:order:<orderId>`: protobuf IntentRecord.
 * - `rm:intents:order:tx:<chainId>:<txHash>`: protobuf IntentRecord of a notified transaction whose
 *   order id is not known yet (SUBMITTED, REVERTED, DROPPED).
 * - `rm:intents:tx:<chainId>:<txHash>`: set of the order ids the transaction opened.
 * - `rm:intents:txstate:<chainId>:<txHash>`: hash {status: NOTIFIED|SUCCEEDED|REVERTED|DROPPED,
 *   userAddress, notifiedAt, resolvedAt}.
 * - `rm:intents:user:<address>:pending`: zset, score = ms of first sighting, member = orderId or
 *   `tx:<chainId>:<txHash>`.
 * - `rm:intents:user:<address>:expired`: zset, score = fill deadline (unix s), member = orderId.
 * - `rm:intents:head:<chainId>`: hash {blockNumber, blockHash, timestamp, ...}: how far the mirror has read.
 * - `rm:intents:projection`: the projection's marker, `complete` once a rebuild has caught up.
 */
export const projectionKeys = {
  order: (orderId: string) => `rm:intents:order:${orderId.toLowerCase()}`,
  txOrder: (chainId: string, txHash: string) => `rm:intents:order:tx:${chainId}:${txHash.toLowerCase()}`,
  txOrders: (chainId: string, txHash: string) => `rm:intents:tx:${chainId}:${txHash.toLowerCase()}`,
  txState: (chainId: string, txHash: string) => `rm:intents:txstate:${chainId}:${txHash.toLowerCase()}`,
  userPending: (address: string) => `rm:intents:user:${address}:pending`,
  userExpired: (address: string) => `rm:intents:user:${address}:expired`,
  head: (chainId: string) => `rm:intents:head:${chainId}`,
  marker: "rm:intents:projection",
};

/** A pending-zset member names an order, or a notified transaction with no order id yet. */
export function recordKeyOfMember(member: string): string {
  const tx = /^tx:(\d+):(0x[0-9a-fA-F]{64})$/.exec(member);
  return tx ? projectionKeys.txOrder(tx[1]!, tx[2]!) : projectionKeys.order(member);
}
