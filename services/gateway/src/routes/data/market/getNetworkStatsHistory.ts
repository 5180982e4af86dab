import { callUnary } from "@platform/grpc";
import type { MarketServiceClient } from "@platform/proto/data/v1/market";
import { networkStatsHistoryExample } from "../examples.js";
import { INVALID_CURSOR, INVALID_PARAMETER, WINDOW_TOO_LARGE } from "../shared/answer.js";
import { historyRoute } from "../shared/historyRoute.js";
import { SERIES_HISTORY, SERIES_HISTORY_TEXT } from "../shared/seriesHistory.js";
import { NetworkStatsHistorySchema } from "./marketSchemas.js";
import { renderNetworkStatsHistory } from "./renderMarket.js";

/** `GET /data/v1/network/stats/history`: the network totals at the end of each bucket of a window. */
export function getNetworkStatsHistoryRoute(market: MarketServiceClient) {
  return historyRoute({
    path: "/data/v1/network/stats/history",
    operationId: "getNetworkStatsHistory",
    summary: "Network totals history",
    description: `The network totals of network/stats/latest over time (issuance, stake, locks, emission, counts, registration costs), less what that route derives from other series at its block (24 h volume, the neuron burn range). ${SERIES_HISTORY_TEXT}`,
    tags: ["Data: market"],
    own: {},
    ...SERIES_HISTORY,
    success: {
      schema: NetworkStatsHistorySchema,
      description: "One page of network totals",
      example: renderNetworkStatsHistory(networkStatsHistoryExample, { query: { interval: "1h", limit: 1 }, limit: 1 }),
    },
    errors: [INVALID_PARAMETER, INVALID_CURSOR, WINDOW_TOO_LARGE],
    call: ({ window, page, order }, metadata) =>
      callUnary(market, market.getNetworkStatsHistory, { window, page, order }, metadata),
    linkQuery: (_query, window) => window,
    render: (answer, view) => renderNetworkStatsHistory(answer, view),
  });
}
