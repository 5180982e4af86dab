/**
 * The Redis keys AccountsService reads. The layout is the projector's contract, documented in
 * services/projector/src/accounts/keys.ts (accounts) and services/projector/src/market/keys.ts
 * (pool and coin prices); change them only together.
 */
export const accountsKeys = {
  points: (publicKey: string) => `rm:accounts:points:${publicKey}`,
  txs: (publicKey: string) => `rm:accounts:txs:${publicKey}`,
  tx: (publicKey: string) => `rm:accounts:tx:${publicKey}`,
  head: "rm:accounts:head",
} as const;

export const marketPriceKeys = {
  /** PoolSnapshot SeriesPoint JSON `{b: block, h: hash, t: time ms, m: {price}}` scored by block * 100000 + log index. */
  poolPoints: (netuid: number) => `rm:market:pool:${netuid}:points`,
  /** Bucket aggregates `{s, c, ...}` scored by bucket start (unix s); `c` is the price at the bucket's close. */
  poolBuckets: (netuid: number, interval: "1h" | "1d") => `rm:market:pool:${netuid}:buckets:${interval}`,
  /** SeriesPoint JSON `{t, m: {price}}` of the coin price, scored as the pool points. */
  coinPoints: "rm:market:price:TAO:usd:points",
  coinBuckets: (interval: "1h" | "1d") => `rm:market:price:TAO:usd:buckets:${interval}`,
} as const;
