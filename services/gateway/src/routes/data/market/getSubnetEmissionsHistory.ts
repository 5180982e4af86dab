import { callUnary } from "@platform/grpc";
import { integerQuery } from "@platform/http";
import type { MarketServiceClient } from "@platform/proto/data/v1/market";
import { emissionsHistoryExample } from "../examples.js";
import { INVALID_CURSOR, INVALID_PARAMETER, NETUID_NOT_FOUND, WINDOW_TOO_LARGE } from "../shared/answer.js";
import { historyRoute } from "../shared/historyRoute.js";
import { NETUID_MAX } from "../shared/schemas.js";
import { SERIES_HISTORY, SERIES_HISTORY_TEXT } from "../shared/seriesHistory.js";
import { SubnetEmissionsHistorySchema } from "./marketSchemas.js";
import { renderEmissionsHistory } from "./renderMarket.js";

/** `GET /data/v1/subnet-emissions/history?netuid=`: one subnet's emission in the last block of each bucket. */
export function getSubnetEmissionsHistoryRoute(market: MarketServiceClient) {
  return historyRoute({
    path: "/data/v1/subnet-emissions/history",
    operationId: "getSubnetEmissionsHistory",
    summary: "Subnet emission history",
    description: `One subnet's emission breakdown as subnet-emissions/latest shows it (TAO and alpha injected in the block, the alpha-out split, pending alpha, epoch blocks, per-day estimate), in the block read for each bucket. ${SERIES_HISTORY_TEXT}`,
    tags: ["Data: market"],
    own: { netuid: integerQuery({ min: 0, max: NETUID_MAX, description: "The subnet (required)" }) },
    ...SERIES_HISTORY,
    success: {
      schema: SubnetEmissionsHistorySchema,
      description: "One page of a subnet's emission points",
      example: renderEmissionsHistory(emissionsHistoryExample, {
        query: { netuid: 64, interval: "1h", limit: 1 },
        limit: 1,
        netuid: 64,
      }),
    },
    errors: [INVALID_PARAMETER, INVALID_CURSOR, WINDOW_TOO_LARGE, NETUID_NOT_FOUND],
    call: ({ query, window, page, order }, metadata) =>
      callUnary(market, market.getSubnetEmissionsHistory, { netuid: query.netuid, window, page, order }, metadata),
    linkQuery: (query, window) => ({ netuid: query.netuid, ...window }),
    render: (answer, view) => renderEmissionsHistory(answer, { ...view, netuid: Number(view.query.netuid) }),
  });
}
