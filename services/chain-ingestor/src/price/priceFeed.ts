import type { ChainRef } from "@platform/proto/common/v1/common";
import type { PriceObserved } from "@platform/proto/events/v1/oracle_prices";
import { formatScaled, priceFeedAbi } from "@platform/subtensor";
import { type Address, decodeEventLog, getAddress, type Hex, toEventSelector } from "viem";
import type { RawLog } from "../evm/rawLog.js";
import { type PriceRecord, priceEventId } from "./priceRecord.js";

export const answerUpdatedTopic = toEventSelector(
  priceFeedAbi.find((item) => item.type === "event" && item.name === "AnswerUpdated")!,
);

/** A round of the feed: its answer (scaled by the feed's decimals), id and `updatedAt` (unix seconds). */
export interface PriceRound {
  answer: bigint;
  roundId: bigint;
  updatedAt: bigint;
}

/** An `AnswerUpdated` log's round: the answer and round id (indexed) and its updatedAt. */
export function decodeAnswerUpdated(log: RawLog): PriceRound | undefined {
  if (log.topics[0]?.toLowerCase() !== answerUpdatedTopic) return undefined;
  const decoded = decodeEventLog({
    abi: priceFeedAbi,
    eventName: "AnswerUpdated",
    topics: log.topics as [Hex, ...Hex[]],
    data: log.data,
  });
  return { answer: decoded.args.current, roundId: decoded.args.roundId, updatedAt: decoded.args.updatedAt };
}

export interface PriceFeedIdentity {
  chainId: number;
  feed: Address;
  decimals: number;
  /** Base asset and quote currency, e.g. TAO / usd. */
  asset: string;
  vs: string;
}

/** A PriceObserved record of a round; `ref` carries tx and log when it comes from an AnswerUpdated log. */
export function priceRecord(round: PriceRound, ref: ChainRef, feed: PriceFeedIdentity): PriceRecord {
  const value: PriceObserved = {
    ref,
    asset: feed.asset,
    vs: feed.vs,
    price: formatScaled(round.answer, feed.decimals),
    answer: round.answer.toString(),
    decimals: feed.decimals,
    roundId: round.roundId.toString(),
    updatedAt: new Date(Number(round.updatedAt) * 1_000).toISOString(),
    feedAddress: getAddress(feed.feed),
    provider: "chainlink",
  };
  return {
    topic: "oracle.prices.v1",
    key: feed.asset,
    eventId: priceEventId(feed.chainId, ref.blockHash, ref.logIndex, round.roundId),
    eventType: "PriceObserved",
    ref,
    payload: { event: { $case: "priceObserved", value } },
  };
}
