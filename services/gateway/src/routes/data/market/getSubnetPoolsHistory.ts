import { callUnary } from "@platform/grpc";
import type { MarketServiceClient } from "@platform/proto/data/v1/market";
import { poolsHistoryExample } from "../examples.js";
import { INVALID_CURSOR, INVALID_PARAMETER, joinList, NETUID_NOT_FOUND, WINDOW_TOO_LARGE } from "../shared/answer.js";
import { historyRoute } from "../shared/historyRoute.js";
import { enumQuery, netuidList } from "../shared/schemas.js";
import { FORMATS, formatOf } from "./getPriceHistory.js";
import { SubnetPoolsHistorySchema } from "./marketSchemas.js";
import { renderPoolsHistory } from "./renderMarket.js";

const LIMIT_DEFAULT = 500;
const LIMIT_MAX = 2_000;

/** `GET /data/v1/subnet-pools/history`: alpha price (OHLC) and reserves of up to 16 subnets over a window. */
export function getSubnetPoolsHistoryRoute(market: MarketServiceClient) {
  return historyRoute({
    path: "/data/v1/subnet-pools/history",
    operationId: "getSubnetPoolsHistory",
    summary: "Subnet pool history",
    description: `Per subnet and bucket: alpha price open/high/low/close (TAO per alpha), EMA price, reserves, market cap and the volume traded in the bucket; block_number is the last block of the bucket. A window over the interval's maximum is 400 WINDOW_TOO_LARGE. limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}.`,
    tags: ["Data: market"],
    own: {
      netuid: netuidList(16, "The subnets (required)"),
      format: enumQuery(FORMATS, "ohlc (the default) or close (price_close_tao only)"),
    },
    window: {
      defaults: "end - 7 days",
      blocks: true,
      intervals: ["block", "5m", "1h", "4h", "1d"],
      defaultInterval: "1h",
      limits: "Window at most 7,200 blocks with block, 7 days with 5m, 90 days with 1h, 1 year with 4h.",
      rules: [
        {
          kind: "onlyWhen",
          parameters: ["block_start", "block_end"],
          parameter: "interval",
          values: ["block"],
          message: "goes with interval=block; bucketed intervals take start/end",
        },
        {
          kind: "notWhen",
          parameters: ["start", "end"],
          parameter: "interval",
          values: ["block"],
          message: "does not go with interval=block, which takes block_start/block_end",
        },
      ],
    },
    page: { defaultLimit: LIMIT_DEFAULT, maxLimit: LIMIT_MAX },
    order: { default: "asc", what: "Order of the points by time" },
    success: {
      schema: SubnetPoolsHistorySchema,
      description: "One page of pool points",
      example: renderPoolsHistory(poolsHistoryExample, { query: { netuid: "64", interval: "1h", limit: 1 }, limit: 1 }),
    },
    errors: [INVALID_PARAMETER, INVALID_CURSOR, WINDOW_TOO_LARGE, NETUID_NOT_FOUND],
    call: ({ query, window, page, order }, metadata) =>
      callUnary(
        market,
        market.getSubnetPoolsHistory,
        { netuids: query.netuid, window, format: formatOf(query.format), page, order },
        metadata,
      ),
    linkQuery: (query, window) => ({ netuid: joinList(query.netuid), ...window, format: query.format }),
    render: (answer, view) => renderPoolsHistory(answer, view),
  });
}
