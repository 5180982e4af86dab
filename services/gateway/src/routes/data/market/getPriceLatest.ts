import { callUnary } from "@platform/grpc";
import { defineRoute } from "@platform/http";
import type { MarketServiceClient } from "@platform/proto/data/v1/market";
import { z } from "zod";
import { priceLatestExample } from "../examples.js";
import { DATA_SCOPE, halAnswer, halSuccess, INVALID_PARAMETER, metadataOf } from "../shared/answer.js";
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
    query: z.object({ vs: vsQuery() }),
    docs: {
      summary: "Latest TAO price",
      description:
        "The TAO/USD price from the price feed (source names the feed, its round and its own updated_at, so staleness is visible), changes over 1 h, 24 h, 7 d and 30 d (null without enough history), market capitalisation from chain issuance, and the fixed maximum supply.",
      tags: ["Data: market"],
      success: halSuccess(
        PriceLatestSchema,
        "The price at as_of",
        renderPriceLatest(priceLatestExample, { query: {} }),
      ),
      errors: [INVALID_PARAMETER],
    },
    async handle({ query, context }) {
      const answer = await callUnary(market, market.getPriceLatest, { vs: query.vs ?? "usd" }, metadataOf(context));
      return halAnswer(renderPriceLatest(answer, { query: { vs: query.vs } }));
    },
  });
}
