import { DATA_PREFIX } from "./hashTags.js";
import { marketKeys } from "./market.js";
import type { SeriesPoint } from "./series.js";
import { subnetsKeys } from "./subnets.js";

/**
 * The series whose history (history.series_points in PostgreSQL) is kept under another read
 * model's key. The subnets projection keeps its own copy of each pool and emission snapshot in
 * Redis (a subnet's pool then comes from the same block as the subnet itself), but the market
 * projection keeps the same snapshots point for point in PostgreSQL (the same event bytes at the
 * same ordinals; its pool points carry running volumes besides): they are written there once,
 * under the market's key, which was half the rows a block wrote (the Finney-day soak, issue 41).
 */
const escaped = DATA_PREFIX.replace(/[{}]/g, "\\$&");
const SUBNETS_KEPT_BY_MARKET = new RegExp(`^${escaped}subnets:(pool|emission):(\\d+):points$`);
const MARKET_KEPT_FOR_SUBNETS = new RegExp(`^${escaped}market:(pool|emission):(\\d+):points$`);
const MARKET_KEY = { pool: marketKeys.poolPoints, emission: marketKeys.emissionPoints } as const;
const SUBNETS_KEY = { pool: subnetsKeys.poolPoints, emission: subnetsKeys.emissionPoints } as const;

/** The key a series' points have in the history database: its own, or the market's for the subnets' pools and emissions. */
export function historySeriesKey(key: string): string {
  const match = SUBNETS_KEPT_BY_MARKET.exec(key);
  return match === null ? key : MARKET_KEY[match[1] as "pool" | "emission"](Number(match[2]));
}

/** The subnets series a market series' history stands for (its pools and emissions), or undefined. */
export function subnetsSeriesKeptAs(marketKey: string): string | undefined {
  const match = MARKET_KEPT_FOR_SUBNETS.exec(marketKey);
  return match === null ? undefined : SUBNETS_KEY[match[1] as "pool" | "emission"](Number(match[2]));
}

/** The market's prefix of the series it keeps for the subnets read model. */
export const MARKET_SERIES_PREFIX = `${DATA_PREFIX}market:`;

/** A market point as the subnets projection writes the same snapshot: the event and its block, nothing the market adds. */
export const snapshotPointOf = (point: SeriesPoint): SeriesPoint => ({
  o: point.o,
  b: point.b,
  h: point.h,
  t: point.t,
  p: point.p,
});
