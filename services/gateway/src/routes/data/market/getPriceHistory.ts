import { callUnary } from "@platform/grpc";
import { defineRoute } from "@platform/http";
import { type MarketServiceClient, SeriesFormat } from "@platform/proto/data/v1/market";
import { priceHistoryExample } from "../examples.js";
import {
  DATA_SCOPE,
  halAnswer,
  halSuccess,
  INVALID_CURSOR,
  INVALID_PARAMETER,
  metadataOf,
  WINDOW_TOO_LARGE,
} from "../shared/answer.js";
import {
  enumQuery,
  intervalQuery,
  orderQuery,
  pageQuery,
  pageRequest,
  sortOrderOf,
  timeWindow,
  windowedQuery,
  windowLinkQuery,
  windowQuery,
} from "../shared/schemas.js";
import { vsQuery } from "./getPriceLatest.js";
import { PriceHistorySchema } from "./marketSchemas.js";
import { renderPriceHistory } from "./renderMarket.js";

const LIMIT_DEFAULT = 500;
const LIMIT_MAX = 2_000;

export const FORMATS = { ohlc: SeriesFormat.SERIES_FORMAT_OHLC, close: SeriesFormat.SERIES_FORMAT_CLOSE } as const;
export const formatOf = (format: keyof typeof FORMATS | undefined) =>
  format === undefined ? SeriesFormat.SERIES_FORMAT_UNSPECIFIED : FORMATS[format];

/** `GET /data/v1/coin/price/history`: TAO/USD candles over a window. */
export function getPriceHistoryRoute(market: MarketServiceClient) {
  return defineRoute({
    method: "get",
    path: "/data/v1/coin/price/history",
    operationId: "getCoinPriceHistory",
    scope: DATA_SCOPE,
    cost: 2,
    query: windowedQuery({
      vs: vsQuery(),
      ...windowQuery("end - 7 days"),
      interval: intervalQuery(["5m", "1h", "1d"], "1h", "Window at most 7 days with 5m, 90 days with 1h."),
      format: enumQuery(FORMATS, "ohlc (open, high, low, close; the default) or close (close only, lighter)"),
      ...pageQuery(LIMIT_DEFAULT, LIMIT_MAX),
      order: orderQuery("asc", "Order of the candles by time"),
    }),
    docs: {
      summary: "TAO price history",
      description: `Candles of the TAO/USD price per bucket of a window [start, end), oldest first by default. A window over the interval's maximum is 400 WINDOW_TOO_LARGE. limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}; follow _links.next for the next page.`,
      tags: ["Data: market"],
      success: halSuccess(
        PriceHistorySchema,
        "One page of candles",
        renderPriceHistory(priceHistoryExample, { query: { interval: "1h", limit: 2 }, limit: 2 }),
      ),
      errors: [INVALID_PARAMETER, INVALID_CURSOR, WINDOW_TOO_LARGE],
    },
    async handle({ query, context }) {
      const page = pageRequest(query, LIMIT_DEFAULT);
      const answer = await callUnary(
        market,
        market.getPriceHistory,
        {
          vs: query.vs ?? "usd",
          window: timeWindow(query),
          format: formatOf(query.format),
          page,
          order: sortOrderOf(query.order),
        },
        metadataOf(context),
      );
      return halAnswer(
        renderPriceHistory(answer, {
          query: {
            vs: query.vs,
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
