import { invalidArgument } from "@platform/errors";
import {
  Interval,
  type PageInfo,
  type PageRequest,
  type SortOrder,
  type TimeWindow,
} from "@platform/proto/common/v1/common";
import type { SeriesPoint } from "@platform/read-models";
import { bucketStarts, DURATION, intervalMs, resolveInterval } from "./buckets.js";
import { decodeCursor, encodeCursor, queryScope } from "./cursor.js";
import { orderOf, pageLimitOf } from "./page.js";
import { firstPoint, pointsBefore, type SeriesSource } from "./seriesWindow.js";
import { resolveWindow } from "./window.js";

/**
 * The history of a snapshot series (network stats, a subnet's emission or settings): one reading
 * per UTC bucket of a time window, the series' state at the bucket's end (its newest point before
 * min(bucket end, window end)), carried forward over buckets without a point of their own, as the
 * balance history does. Buckets run from the one holding the series' first point to the one
 * holding the head. A page costs one read per store for its buckets only (seriesWindow.ts).
 */
export const SERIES_HISTORY_PAGE = { defaultLimit: 500, maxLimit: 2_000 } as const;
const INTERVALS = {
  allowed: [
    Interval.INTERVAL_FIVE_MINUTES,
    Interval.INTERVAL_ONE_HOUR,
    Interval.INTERVAL_ONE_DAY,
    Interval.INTERVAL_ONE_WEEK,
  ],
  fallback: Interval.INTERVAL_ONE_HOUR,
} as const;
const MAX_SPAN: Partial<Record<Interval, number>> = {
  [Interval.INTERVAL_FIVE_MINUTES]: 7 * DURATION.DAY,
  [Interval.INTERVAL_ONE_HOUR]: 90 * DURATION.DAY,
  [Interval.INTERVAL_ONE_DAY]: 5 * 366 * DURATION.DAY,
  [Interval.INTERVAL_ONE_WEEK]: 5 * 366 * DURATION.DAY,
};
const DEFAULT_SPAN = 7 * DURATION.DAY;

export interface SeriesHistoryRequest {
  window?: TimeWindow | undefined;
  page?: PageRequest | undefined;
  order: SortOrder;
}

export interface SeriesReading {
  bucketStartMs: number;
  point: SeriesPoint;
}

/** The interval, window and page checks of a series history, made before any read. */
export function checkSeriesHistory(request: SeriesHistoryRequest, nowMs: number) {
  const interval = resolveInterval(request.window?.interval, INTERVALS);
  if (request.window?.blockStart !== undefined || request.window?.blockEnd !== undefined) {
    throw invalidArgument("INVALID_PARAMETER", "this route takes a time window (start, end), not block bounds", {
      parameter: "block_start",
    });
  }
  const rules = { defaultSpanMs: DEFAULT_SPAN, maxSpanMs: MAX_SPAN[interval]! };
  resolveWindow(request.window, rules, nowMs);
  return {
    interval,
    rules,
    limit: pageLimitOf(request.page, SERIES_HISTORY_PAGE),
    order: orderOf(request.order, "asc"),
  };
}

/**
 * One page of readings. `scope` names the query (route and subject) the cursor is bound to; `head`
 * is the block and time the answer's as_of names: no reading is taken past it.
 */
export async function seriesHistoryPage(
  source: SeriesSource,
  request: SeriesHistoryRequest,
  options: { scope: readonly unknown[]; headMs: number },
  nowMs: number,
): Promise<{ interval: Interval; readings: SeriesReading[]; page: PageInfo }> {
  const { interval, rules, limit, order } = checkSeriesHistory(request, nowMs);
  const scope = queryScope([
    ...options.scope,
    interval,
    request.window?.start ?? null,
    request.window?.end ?? null,
    order,
  ]);
  const after = request.page?.cursor
    ? Number(decodeCursor(request.page.cursor, scope, { b: /^-?\d{1,16}$/ }).b)
    : undefined;
  // A default window ends at the later of now and the head's time: a chain's clock may run ahead of this server's.
  const window = resolveWindow(request.window, rules, Math.max(nowMs, options.headMs + 1));
  if (window.kind !== "time") throw new Error("unreachable: block bounds refused above");
  const first = await firstPoint(source);
  const top = Math.min(window.endMs, options.headMs + 1);
  const buckets = first === undefined ? [] : bucketStarts(Math.max(window.startMs, first.t), top, interval);
  if (order === "desc") buckets.reverse();
  const rest =
    after === undefined ? buckets : buckets.filter((start) => (order === "asc" ? start > after : start < after));
  const starts = rest.slice(0, limit);
  const size = intervalMs(interval);
  const points = await pointsBefore(
    source,
    starts.map((start) => Math.min(start + size, top)),
  );
  const readings = starts
    .map((start, index) => ({ bucketStartMs: start, point: points[index] }))
    .filter((reading): reading is SeriesReading => reading.point !== undefined);
  const hasMore = rest.length > limit;
  const last = starts.at(-1);
  const page: PageInfo = { limit, hasMore };
  if (hasMore && last !== undefined) page.nextCursor = encodeCursor(scope, { b: String(last) });
  return { interval, readings, page };
}
