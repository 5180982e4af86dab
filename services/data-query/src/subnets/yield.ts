import type { ValidatorYield } from "@platform/proto/data/v1/subnets";
import { decodeYieldIndex, INDEX_SCALE, type SeriesPoint, subnetsKeys, type YieldIndex } from "@platform/read-models";
import { formatDecimal } from "../shared/decimal.js";
import type { SeriesStores } from "../shared/seriesAt.js";
import { firstPoint, pointsBefore } from "../shared/seriesWindow.js";

/**
 * Validator yield (`validators/latest`'s `yield`): over a window W ending at the answer's block,
 * `(index at the end − index at the start) × (365 days ÷ W)`, from the subnet's yield index
 * (libs/read-models yieldIndex.ts). The index at an instant is its newest point at or before it;
 * a simple (not compounded) annual rate, a decimal (0.12 is 12 % a year). A window that starts
 * before the subnet's first index point is null: the history does not cover it, and
 * `covered_from_block` names where it starts.
 */

export const YIELD_WINDOWS = [
  { field: "yield1h", ms: 3_600_000 },
  { field: "yield1d", ms: 86_400_000 },
  { field: "yield7d", ms: 7 * 86_400_000 },
  { field: "yield30d", ms: 30 * 86_400_000 },
] as const;

export const YEAR_MS = 365 * 86_400_000;

/** Digits after the point of a yield (the index keeps INDEX_SCALE; the rest is below any stake's precision). */
const YIELD_SCALE = 18;

/** An annualised rate from two index values (units of 10^-INDEX_SCALE) a window of `windowMs` apart, truncated. */
export function annualised(end: bigint, start: bigint, windowMs: number): string {
  const units = ((end - start) * BigInt(YEAR_MS)) / BigInt(windowMs);
  return formatDecimal(units / 10n ** BigInt(INDEX_SCALE - YIELD_SCALE), YIELD_SCALE);
}

/** The index points a yield needs: standing at the end, at each window's start, and the first one. */
export interface YieldPoints {
  end: YieldIndex | undefined;
  /** Per YIELD_WINDOWS entry: the index standing at the window's start; undefined before the history. */
  starts: (YieldIndex | undefined)[];
  first: Pick<SeriesPoint, "b" | "t"> | undefined;
}

/** A hotkey's yields from the points; undefined without any index point (no epoch seen yet). */
export function yieldOf(points: YieldPoints, hotkey: string): ValidatorYield | undefined {
  if (points.end === undefined || points.first === undefined) return undefined;
  const end = points.end.index.get(hotkey) ?? 0n;
  const result: ValidatorYield = {
    coveredFromBlock: String(points.first.b),
    coveredFromTime: new Date(points.first.t).toISOString(),
  };
  YIELD_WINDOWS.forEach((window, at) => {
    const start = points.starts[at];
    // A hotkey absent from a standing index had earned nothing yet.
    if (start !== undefined) result[window.field] = annualised(end, start.index.get(hotkey) ?? 0n, window.ms);
  });
  return result;
}

/** The subnet's yield index points for an answer at `block`, whose time is `timeMs`. */
export async function readYieldPoints(
  stores: SeriesStores,
  netuid: number,
  block: number,
  timeMs: number,
): Promise<YieldPoints> {
  // A block without a time (never from the ingestor) has no windows to measure.
  if (!Number.isFinite(timeMs)) return { end: undefined, starts: [], first: undefined };
  const source = {
    redis: stores.redis,
    history: stores.history,
    key: subnetsKeys.yieldIndexPoints(netuid),
    maxBlock: block,
  };
  // pointsBefore answers the newest point strictly before an instant: +1 ms takes the instant itself.
  const instants = [timeMs + 1, ...YIELD_WINDOWS.map((window) => timeMs - window.ms + 1)];
  const [end, ...starts] = await pointsBefore(source, instants);
  if (end === undefined) return { end: undefined, starts: [], first: undefined };
  const first = await firstPoint(source);
  return {
    end: decodeYieldIndex(end),
    starts: starts.map((start) => (start === undefined ? undefined : decodeYieldIndex(start))),
    first: first ?? end,
  };
}
