import { INTENTS_TAG } from "@platform/read-models";

/**
 * intents-gateway's Redis keyspace (`intents-gateway:` prefix): notification de-duplication only.
 * The status records themselves are the intents projection's (`rm:{intents}:…`).
 *
 * Both carry the intents read model's hash tag (`{intents}`, libs/read-models hashTags.ts): a
 * notification writes them in one MULTI, and the transaction read takes `notified` in one pipeline
 * with the read model's keys, which Redis Cluster allows only within one slot.
 *
 * - `intents-gateway:notified:{intents}:<chainId>:<lowercase txHash>` string: the transaction was notified
 *   (the JSON of its notification); read by the transaction status read while the projection has
 *   not taken the notification in yet. Kept for NOTIFIED_TTL.
 * - `intents-gateway:claim:{intents}:<chainId>:<lowercase txHash>:<lowercase userAddress>` string, JSON of the
 *   first notification of that transaction by that wallet; kept for NOTIFIED_TTL so repeats within
 *   it are answered idempotently without asking the chain again. Keyed by wallet, so a claim by
 *   another wallet (refused unless it sent the transaction) never blocks the sender's own.
 */
export const notifiedKey = (chainId: string, txHash: string) =>
  `intents-gateway:notified:${INTENTS_TAG}:${chainId}:${txHash.toLowerCase()}`;

export const claimKey = (chainId: string, txHash: string, userAddress: string) =>
  `intents-gateway:claim:${INTENTS_TAG}:${chainId}:${txHash.toLowerCase()}:${userAddress.toLowerCase()}`;

export const NOTIFIED_TTL_SECONDS = 7 * 24 * 3600;
