import type { HistoryRouteSpec } from "./historyRoute.js";

/**
 * What the snapshot histories (network stats, a subnet's emissions, a subnet's settings) share:
 * data-query's series reader answers one reading per UTC bucket, the state at the bucket's end
 * (data-query shared/seriesHistory.ts), with these intervals, window maxima and page sizes.
 */
export const SERIES_HISTORY: Pick<HistoryRouteSpec<{}, never, unknown, unknown>, "window" | "page" | "order"> = {
  window: {
    defaults: "end - 7 days",
    intervals: ["5m", "1h", "1d", "1w"],
    defaultInterval: "1h",
    limits: "Window at most 7 days with 5m, 90 days with 1h, 5 years with 1d and 1w.",
  },
  page: { defaultLimit: 500, maxLimit: 2_000 },
  order: { default: "asc", what: "Order of the points by time" },
};

/** How a snapshot history's points are taken, for the routes' descriptions. */
export const SERIES_HISTORY_TEXT = `One point per UTC bucket of the window [start, end): the state at the bucket's end (the newest reading before it, carried forward over buckets without one), from the bucket holding the first reading to the one holding as_of; block_number and timestamp name the block read. Covers the whole followed chain (the history database), not only the newest blocks. A window over the interval's maximum is 400 WINDOW_TOO_LARGE. limit defaults to ${SERIES_HISTORY.page.defaultLimit}, at most ${SERIES_HISTORY.page.maxLimit}; follow _links.next for the next page.`;
