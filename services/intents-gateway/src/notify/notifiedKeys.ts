/**
 * intents-gateway's Redis keyspace (`intents-gateway:` prefix): notification de-duplication only.
 * The status records themselves are the intents projection's (`rm:intents:…`).
 *
 * - `intents-gateway:notified:<chainId>:<lowercase txHash>` string, JSON of the first notification
 *   of that transaction; kept for NOTIFIED_TTL so repeats within it are answered idempotently.
 */
export const notifiedKey = (chainId: string, txHash: string) => `intents-gateway:notified:${chainId}:${txHash.toLowerCase()}`;

export const NOTIFIED_TTL_SECONDS = 7 * 24 * 3600;
