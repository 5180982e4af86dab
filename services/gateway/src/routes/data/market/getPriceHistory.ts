import { callUnary } from "@platform/grpc";
import { type MarketServiceClient, SeriesFormat } from "@platform/proto/data/v1/market";
import { priceHistoryExample } from "../examples.js";
import { INVALID_CURSOR, INVALID_PARAMETER, WINDOW_TOO_LARGE } from "../shared/answer.js";
import { historyRoute } from "../shared/historyRoute.js";
import { enumQuery } from "../shared/schemas.js";
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
  return historyRoute({
    path: "/data/v1/coin/price/history",
    operationId: "getCoinPriceHistory",
    summary: "TAO price history",
    description: `Candles of the TAO/USD price per bucket of a window [start, end), oldest first by default. A window over the interval's maximum is 400 WINDOW_TOO_LARGE. limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}; follow _links.next for the next page.`,
    tags: ["Data: market"],
    own: {
      vs: vsQuery(),
      format: enumQuery(FORMATS, "ohlc (open, high, low, close; the default) or close (close only, lighter)"),
    },
    window: {
      defaults: "end - 7 days",
      intervals: ["5m", "1h", "1d"],
      defaultInterval: "1h",
      limits: "Window at most 7 days with 5m, 90 days with 1h.",
    },
    page: { defaultLimit: LIMIT_DEFAULT, maxLimit: LIMIT_MAX },
    order: { default: "asc", what: "Order of the candles by time" },
    success: {
      schema: PriceHistorySchema,
      description: "One page of candles",
      example: renderPriceHistory(priceHistoryExample, { query: { interval: "1h", limit: 2 }, limit: 2 }),
    },
    errors: [INVALID_PARAMETER, INVALID_CURSOR, WINDOW_TOO_LARGE],
    call: ({ query, window, page, order }, metadata) =>
      callUnary(
        market,
        market.getPriceHistory,
        { vs: query.vs ?? "usd", window, format: formatOf(query.format), page, order },
        metadata,
      ),
    linkQuery: (query, window) => ({ vs: query.vs, ...window, format: query.format }),
    render: (answer, view) => renderPriceHistory(answer, view),
  });
}
