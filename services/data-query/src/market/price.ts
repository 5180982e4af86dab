import { invalidArgument, notFound } from "@platform/errors";
import type { HistoryDb } from "@platform/history";
import { Interval, type TimeWindow } from "@platform/proto/common/v1/common";
import {
  type GetPriceHistoryRequest,
  type GetPriceHistoryResponse,
  type GetPriceLatestRequest,
  type GetPriceLatestResponse,
  type PriceCandle,
  SeriesFormat,
} from "@platform/proto/data/v1/market";
import { NetworkStatsSnapshot } from "@platform/proto/events/v1/chain_network";
import { PriceObserved } from "@platform/proto/events/v1/oracle_prices";
import { marketKeys, type SeriesPoint } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { asOfOf, notYet } from "../shared/asOfRef.js";
import { resolveInterval } from "../shared/buckets.js";
import { DAY_MS, HOUR_MS, priceChanges } from "../shared/changes.js";
import { queryScope } from "../shared/cursor.js";
import { formatDecimal } from "../shared/decimal.js";
import { multiply } from "../shared/numbers.js";
import { orderOf, pageLimitOf } from "../shared/page.js";
import { decodePoint, newestPoints } from "../shared/readModel.js";
import { pointsBefore } from "../shared/seriesWindow.js";
import { parseTime, resolveWindow } from "../shared/window.js";
import { bucketNameOf, bucketPage } from "./bucketPage.js";

const ASSET = "TAO";
const MAX_SUPPLY_TAO = "21000000";
const MAX_SUPPLY_RAO = `${MAX_SUPPLY_TAO}000000000`;

/** v1 quotes TAO in USD only. */
function vsOf(vs: string): string {
  const value = vs === "" ? "usd" : vs.toLowerCase();
  if (value !== "usd") throw invalidArgument("INVALID_PARAMETER", "vs must be usd", { parameter: "vs" });
  return value;
}

/**
 * `GET /data/v1/coin/price/latest`: the newest price round, its changes, and supply from the newest
 * network stats; with `at`, the round and the stats in force at that time instead.
 */
export async function getPriceLatest(
  redis: Redis,
  request: GetPriceLatestRequest,
  history?: HistoryDb,
  nowMs = Date.now(),
): Promise<GetPriceLatestResponse> {
  const vs = vsOf(request.vs);
  const keys = [marketKeys.pricePoints(ASSET, vs), marketKeys.statsPoints];
  const [pricePoint, statsPoint] =
    request.at === undefined
      ? await newestPoints(redis, keys)
      : await pointsAtTime(redis, history, keys, request.at, nowMs);
  if (pricePoint === undefined) throw notYet("price");
  const observed = decodePoint(pricePoint, PriceObserved);
  const asOf = asOfOf(observed.ref);
  const [changes] = await priceChanges(
    redis,
    [marketKeys.priceBuckets(ASSET, vs, "5m")],
    Date.parse(asOf.timestamp),
    [HOUR_MS, DAY_MS, 7 * DAY_MS, 30 * DAY_MS],
    [observed.price],
  );
  const [change1h, change24h, change7d, change30d] = changes!;
  const response: GetPriceLatestResponse = {
    asOf,
    symbol: ASSET,
    vs,
    price: observed.price,
    maxSupplyTao: MAX_SUPPLY_TAO,
    maxSupplyRao: MAX_SUPPLY_RAO,
    fullyDilutedMarketCapUsd: multiply(observed.price, MAX_SUPPLY_TAO),
    source: {
      provider: observed.provider,
      feedAddress: observed.feedAddress,
      updatedAt: observed.updatedAt,
      roundId: observed.roundId,
    },
  };
  if (change1h !== undefined) response.priceChange1hPct = change1h;
  if (change24h !== undefined) response.priceChange24hPct = change24h;
  if (change7d !== undefined) response.priceChange7dPct = change7d;
  if (change30d !== undefined) response.priceChange30dPct = change30d;
  if (statsPoint !== undefined) {
    const stats = decodePoint(statsPoint, NetworkStatsSnapshot);
    const circulating = formatDecimal(BigInt(stats.totalIssuanceRao), 9);
    response.totalIssuanceRao = stats.totalIssuanceRao;
    response.circulatingSupplyTao = circulating;
    response.circulatingSupplyRao = stats.totalIssuanceRao;
    response.marketCapUsd = multiply(observed.price, circulating);
  }
  return response;
}

/**
 * Each series' newest point at or before `at` (RFC 3339). The price follows its own oracle chain, so
 * a past price is asked by time, not by a native block number. A time still to come is
 * TIME_NOT_YET_INDEXED, one before the feed's first round (or, without the history database, before
 * the rounds Redis keeps) TIME_BEFORE_HISTORY: both 404, as their block_number counterparts.
 */
async function pointsAtTime(
  redis: Redis,
  history: HistoryDb | undefined,
  keys: readonly string[],
  at: string,
  nowMs: number,
): Promise<(SeriesPoint | undefined)[]> {
  const atMs = parseTime(at, "at");
  if (atMs > nowMs) throw notFound("TIME_NOT_YET_INDEXED", "at is later than the newest time indexed", { at });
  const points = await Promise.all(
    keys.map(async (key) => (await pointsBefore({ redis, history, key }, [atMs + 1]))[0]),
  );
  if (points[0] === undefined)
    throw notFound("TIME_BEFORE_HISTORY", "there is no price round kept at or before at", { at });
  return points;
}

const PRICE_INTERVALS = {
  allowed: [Interval.INTERVAL_FIVE_MINUTES, Interval.INTERVAL_ONE_HOUR, Interval.INTERVAL_ONE_DAY],
  fallback: Interval.INTERVAL_ONE_HOUR,
};
const MAX_SPAN_MS: Partial<Record<Interval, number>> = {
  [Interval.INTERVAL_FIVE_MINUTES]: 7 * DAY_MS,
  [Interval.INTERVAL_ONE_HOUR]: 90 * DAY_MS,
  [Interval.INTERVAL_ONE_DAY]: 3_653 * DAY_MS,
};

/** Time bounds only: the price feed's rounds are bucketed by block time. */
export function timeOnly(window: TimeWindow | undefined): void {
  if (window?.blockStart !== undefined || window?.blockEnd !== undefined) {
    throw invalidArgument("INVALID_PARAMETER", "this history takes start/end, not block bounds", {
      parameter: window.blockStart !== undefined ? "block_start" : "block_end",
    });
  }
}

/** `GET /data/v1/coin/price/history`: OHLC candles of the price rounds, by block time. */
export async function getPriceHistory(
  redis: Redis,
  request: GetPriceHistoryRequest,
  nowMs = Date.now(),
): Promise<GetPriceHistoryResponse> {
  const vs = vsOf(request.vs);
  const interval = resolveInterval(request.window?.interval, PRICE_INTERVALS);
  timeOnly(request.window);
  const window = resolveWindow(request.window, { defaultSpanMs: 7 * DAY_MS, maxSpanMs: MAX_SPAN_MS[interval]! }, nowMs);
  if (window.kind !== "time") throw new Error("unreachable: block bounds refused above");
  const limit = pageLimitOf(request.page, { defaultLimit: 500, maxLimit: 2_000 });
  const order = orderOf(request.order, "asc");
  const format = request.format === SeriesFormat.SERIES_FORMAT_CLOSE ? "close" : "ohlc";
  if (
    request.format !== SeriesFormat.SERIES_FORMAT_UNSPECIFIED &&
    request.format !== SeriesFormat.SERIES_FORMAT_OHLC &&
    request.format !== SeriesFormat.SERIES_FORMAT_CLOSE
  ) {
    throw invalidArgument("INVALID_PARAMETER", "format must be ohlc or close", { parameter: "format" });
  }
  const scope = queryScope(["coin/price/history", vs, interval, window.startMs, window.endMs, order]);
  const newestPoint = async () => {
    const [point] = await newestPoints(redis, [marketKeys.pricePoints(ASSET, vs)]);
    if (point === undefined) throw notYet("price");
    return point;
  };
  // The newest round names as_of, and the candles come from another key: a round projected between
  // the two reads would sit in a candle past as_of. Read the newest round again after the page and
  // start over while it moved, so as_of covers exactly what the candles hold.
  let pricePoint = await newestPoint();
  const readPage = () =>
    bucketPage(redis, {
      series: [{ id: 0, key: marketKeys.priceBuckets(ASSET, vs, bucketNameOf(interval)) }],
      interval,
      startMs: window.startMs,
      endMs: window.endMs,
      order,
      limit,
      cursor: request.page?.cursor ?? "",
      scope,
    });
  let page = await readPage();
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const after = await newestPoint();
    if (after === pricePoint) break;
    pricePoint = after;
    page = await readPage();
  }
  const asOf = asOfOf(decodePoint(pricePoint, PriceObserved).ref);
  const candles = page.items.map(
    ({ bucket }): PriceCandle => ({
      bucketStart: new Date(bucket.s * 1_000).toISOString(),
      open: format === "close" ? "" : bucket.o,
      high: format === "close" ? "" : bucket.h,
      low: format === "close" ? "" : bucket.l,
      close: bucket.c,
    }),
  );
  return { asOf, vs, interval, candles, page: page.page };
}
