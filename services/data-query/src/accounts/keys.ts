import { marketKeys } from "@platform/read-models";

/** The market keys AccountsService reads: pool and coin prices (libs/read-models market.ts). */
export const marketPriceKeys = {
  poolPoints: marketKeys.poolPoints,
  poolBuckets: (netuid: number, interval: "1h" | "1d") => marketKeys.poolBuckets(netuid, interval),
  coinPoints: marketKeys.pricePoints("TAO", "usd"),
  coinBuckets: (interval: "1h" | "1d") => marketKeys.priceBuckets("TAO", "usd", interval),
} as const;
