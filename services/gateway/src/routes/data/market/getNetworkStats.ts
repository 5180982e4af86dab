import { callUnary } from "@platform/grpc";
import { defineRoute } from "@platform/http";
import type { MarketServiceClient } from "@platform/proto/data/v1/market";
import { networkStatsExample } from "../examples.js";
import { DATA_SCOPE, halAnswer, halSuccess, metadataOf } from "../shared/answer.js";
import { renderNetworkStats } from "./renderMarket.js";

/** `GET /data/v1/network/stats/latest`: issuance, stake, emission, volume and registration costs. */
export function getNetworkStatsRoute(market: MarketServiceClient) {
  return defineRoute({
    method: "get",
    path: "/data/v1/network/stats/latest",
    operationId: "getNetworkStatsLatest",
    scope: DATA_SCOPE,
    docs: {
      summary: "Latest network totals",
      description:
        "Issuance, stake (root and alpha pools), locked and free TAO, block emission, subnet counts, indexer counts (null where ingestion cannot know them), 24 h volume, and subnet and neuron registration costs. free_rao is derived (issuance - stake - locked).",
      tags: ["Data: market"],
      success: halSuccess("The network totals at as_of", renderNetworkStats(networkStatsExample)),
    },
    async handle({ context }) {
      const answer = await callUnary(market, market.getNetworkStatsLatest, {}, metadataOf(context));
      return halAnswer(renderNetworkStats(answer));
    },
  });
}
