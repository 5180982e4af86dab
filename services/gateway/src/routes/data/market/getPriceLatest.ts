import { callUnary } from "@platform/grpc";
import { defineRoute, instantQuery } from "@platform/http";
import type { MarketServiceClient } from "@platform/proto/data/v1/market";
import { z } from "zod";
import { priceLatestExample } from "../examples.js";
import { DATA_SCOPE, halAnswer, halSuccess, INVALID_PARAMETER, metadataOf, TIME_ERRORS } from "../shared/answer.js";
import { deprecationHeaderDocs, deprecationHeaders, SUPPLY_IN_TAO } from "../shared/deprecations.js";
import { PriceLatestSchema } from "./marketSchemas.js";
import { renderPriceLatest } from "./renderMarket.js";

/** The quote currency; v1 has one. */
export const vsQuery = () =>
  z
    .enum(["usd"], { error: "must be usd (the only quote currency of v1)" })
    .optional()
    .meta({ description: "Quote currency; usd (the default)" });

/** `GET /data/v1/coin/price/latest`: TAO/USD from the on-chain price feed, with changes and supply. */
export function getPriceLatestRoute(market: MarketServiceClient) {
  return defineRoute({
    method: "get",
    path: "/data/v1/coin/price/latest",
    operationId: "getCoinPriceLatest",
    scope: DATA_SCOPE,
    query: z.object({
      vs: vsQuery(),
      at: instantQuery(
        "The price as of this time rather than now: the feed's newest round updated at or before it. A time, not a block number: the price follows its own oracle chain, not the native one",
        ["2026-08-20T00:00:00Z", "1787184000"],
      ).optional(),
    }),
    docs: {
      summary: "Latest TAO price",
      description:
        "The TAO/USD price from the price feed (source names the feed, its round and its own updated_at, so staleness is visible), changes over 1 h, 24 h, 7 d and 30 d (null without enough history), market capitalisation from chain issuance, and the fixed maximum supply. With at (RFC 3339 or unix seconds), the price as of that time: the price follows its own oracle chain (an EVM chain with its own blocks), so a past price is asked by time rather than by a native block_number; as_of then names the oracle chain's block of the round shown, and the supply is the native chain's at that time. A time still to come is 404 TIME_NOT_YET_INDEXED, one before the feed's first round (or the history kept) 404 TIME_BEFORE_HISTORY; a malformed one 400 INVALID_PARAMETER.",
      tags: ["Data: market"],
      success: {
        ...halSuccess(PriceLatestSchema, "The price at as_of", renderPriceLatest(priceLatestExample, { query: {} })),
        headers: deprecationHeaderDocs(SUPPLY_IN_TAO),
      },
      errors: [INVALID_PARAMETER, ...TIME_ERRORS],
    },
    async handle({ query, context }) {
      const answer = await callUnary(
        market,
        market.getPriceLatest,
        { vs: query.vs ?? "usd", at: query.at },
        metadataOf(context),
      );
      return {
        ...halAnswer(renderPriceLatest(answer, { query: { vs: query.vs, at: query.at } })),
        headers: deprecationHeaders(SUPPLY_IN_TAO),
      };
    },
  });
}
