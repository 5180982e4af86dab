import { callUnary } from "@platform/grpc";
import { defineRoute } from "@platform/http";
import type { MarketServiceClient } from "@platform/proto/data/v1/market";
import { poolsHistoryExample } from "../examples.js";
import {
  DATA_SCOPE,
  halAnswer,
  halSuccess,
  INVALID_CURSOR,
  INVALID_PARAMETER,
  joinList,
  metadataOf,
  NETUID_NOT_FOUND,
  WINDOW_TOO_LARGE,
} from "../shared/answer.js";
import {
  enumQuery,
  intervalQuery,
  netuidList,
  orderQuery,
  pageQuery,
  pageRequest,
  sortOrderOf,
  timeWindow,
  windowedQuery,
  windowLinkQuery,
  windowQuery,
} from "../shared/schemas.js";
import { FORMATS, formatOf } from "./getPriceHistory.js";
import { SubnetPoolsHistorySchema } from "./marketSchemas.js";
import { renderPoolsHistory } from "./renderMarket.js";

const LIMIT_DEFAULT = 500;
const LIMIT_MAX = 2_000;

/** `GET /data/v1/subnet-pools/history`: alpha price (OHLC) and reserves of up to 16 subnets over a window. */
export function getSubnetPoolsHistoryRoute(market: MarketServiceClient) {
  return defineRoute({
    method: "get",
    path: "/data/v1/subnet-pools/history",
    operationId: "getSubnetPoolsHistory",
    scope: DATA_SCOPE,
    cost: 2,
    query: windowedQuery(
      {
        netuid: netuidList(16, "The subnets (required)"),
        ...windowQuery("end - 7 days", { blocks: true }),
        interval: intervalQuery(
          ["block", "5m", "1h", "4h", "1d"],
          "1h",
          "Window at most 7,200 blocks with block, 7 days with 5m, 90 days with 1h, 1 year with 4h.",
        ),
        format: enumQuery(FORMATS, "ohlc (the default) or close (price_close_tao only)"),
        ...pageQuery(LIMIT_DEFAULT, LIMIT_MAX),
        order: orderQuery("asc", "Order of the points by time"),
      },
      [
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
    ),
    docs: {
      summary: "Subnet pool history",
      description: `Per subnet and bucket: alpha price open/high/low/close (TAO per alpha), EMA price, reserves, market cap and the volume traded in the bucket; block_number is the last block of the bucket. A window over the interval's maximum is 400 WINDOW_TOO_LARGE. limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}.`,
      tags: ["Data: market"],
      success: halSuccess(
        SubnetPoolsHistorySchema,
        "One page of pool points",
        renderPoolsHistory(poolsHistoryExample, { query: { netuid: "64", interval: "1h", limit: 1 }, limit: 1 }),
      ),
      errors: [INVALID_PARAMETER, INVALID_CURSOR, WINDOW_TOO_LARGE, NETUID_NOT_FOUND],
    },
    async handle({ query, context }) {
      const page = pageRequest(query, LIMIT_DEFAULT);
      const answer = await callUnary(
        market,
        market.getSubnetPoolsHistory,
        {
          netuids: query.netuid,
          window: timeWindow(query),
          format: formatOf(query.format),
          page,
          order: sortOrderOf(query.order),
        },
        metadataOf(context),
      );
      return halAnswer(
        renderPoolsHistory(answer, {
          query: {
            netuid: joinList(query.netuid),
            ...windowLinkQuery(query),
            format: query.format,
            order: query.order,
            limit: query.limit,
          },
          cursor: query.cursor,
          limit: page.limit,
        }),
      );
    },
  });
}
