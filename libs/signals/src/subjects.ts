/** NATS subjects of ARCHITECTURE.md. Signals, never facts: losing one only delays an update. */
export const subjects = {
  /** `{chainId, txHash, apiKeyId}`: the ingestor looks that receipt up now (within the key's cap of tracked hashes). */
  intentsNotified: "intents.notified",
  /** Published after a projection commits; used to drop caches. */
  readModelChanged: (projection: string) => `readmodel.changed.${projection}`,
} as const;
