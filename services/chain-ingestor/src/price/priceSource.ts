import { ingestorTransactionalId } from "@platform/bus";
import type { ConfiguredChain } from "@platform/chain";
import type { Address } from "viem";
import { rpcHeaderReader } from "../evm/rpcHeaderReader.js";
import {
  type FollowerSettings,
  type FollowerSource,
  type FollowerSourceStatus,
  startFollowerSource,
} from "../follower/followerSource.js";
import { commitPriceRecords } from "./commitPriceRecords.js";
import { priceBlockSource } from "./priceBlockSource.js";

export type PriceFeedChain = ConfiguredChain & { contracts: { priceFeed: Address } };

export interface PriceSourceOptions extends FollowerSettings {
  chain: PriceFeedChain;
  pollIntervalMs: number;
}

export type PriceSourceStatus = FollowerSourceStatus;
export type PriceSource = FollowerSource;

/**
 * The network's coin, whose USD price the feed gives (TAO/USD). A constant rather than the chain's
 * native currency: the feed may live on any chain (Ethereum, an L2, the devnet's origin chain).
 */
export const COIN_SYMBOL = "TAO";
export const QUOTE_CURRENCY = "usd";

/**
 * The price source: follows the chain whose `contracts.priceFeed` is set from its checkpoint
 * (`<chainId>:price`) and publishes every step (removals and rounds on oracle.prices.v1,
 * checkpoint) in one Kafka transaction with the transactional id
 * `chain-ingestor-price-<chain>`; the restart, fencing and reorganisation rules are those of
 * follower/followerSource.ts, shared with the other sources.
 */
export function startPriceSource(options: PriceSourceOptions): PriceSource {
  const { chain } = options;
  const sourceId = `${chain.chainId}:price`;
  const blocks = priceBlockSource({
    client: options.client,
    depths: chain.finality,
    feed: { chainId: chain.chainId, feed: chain.contracts.priceFeed, asset: COIN_SYMBOL, vs: QUOTE_CURRENCY },
  });
  return startFollowerSource({
    ...options,
    headers: rpcHeaderReader(options.client),
    kind: "price",
    sourceId,
    transactionalId: ingestorTransactionalId("price", chain.name),
    blocks,
    toRecords: (step, now) => commitPriceRecords(step, { chainId: chain.chainId, sourceId, now }),
    // A source starting from nothing (possibly near the head) publishes the feed's latest round with its first block.
    onResume: (checkpoint) => {
      if (checkpoint === undefined) blocks.publishLatestPriceOnNextBlock();
    },
  });
}
