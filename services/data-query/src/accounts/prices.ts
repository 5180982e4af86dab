import { unavailable } from "@platform/errors";
import { ORDINAL_SPAN } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readModel } from "../shared/asOf.js";
import { marketPriceKeys } from "./keys.js";

/** Root (netuid 0) alpha is TAO 1:1. */
export const ROOT_PRICE = "1";

const DECIMAL = /^\d+(\.\d+)?$/;

/** A price series' point at a block: where it was measured, and the price. */
export interface PricePoint {
  block: number;
  blockHash: string;
  timeMs: number;
  price: string;
}

/** Coin rounds looked at, newest first, for the newest one at or before a time. */
const COIN_ROUNDS_SCANNED = 16;

/**
 * Prices as they stood at a block, read in one pipeline: for each subnet netuid, the pool's newest
 * snapshot at or before the block (root is 1, and has no point), and the newest TAO/USD round at or
 * before the block's time. The round goes by time, not block number: the price feed may live on
 * another chain than the pools (the local stack's feed is on an EVM chain, its pools on the native
 * runtime), whose block numbers say nothing about this one's. A subnet without a snapshot by then is
 * left out; `usd` is undefined without a round (or when the newest rounds all came later).
 */
export async function pricesAtBlock(
  redis: Redis,
  netuids: readonly number[],
  block: number,
  timeMs: number,
): Promise<{ pool: Map<number, PricePoint>; usd: string | undefined }> {
  const subnets = [...new Set(netuids.filter((netuid) => netuid !== 0))];
  const top = block * ORDINAL_SPAN + (ORDINAL_SPAN - 1);
  const pipeline = redis.pipeline();
  for (const netuid of subnets)
    pipeline.zrange(marketPriceKeys.poolPoints(netuid), top, "-inf", "BYSCORE", "REV", "LIMIT", 0, 1);
  pipeline.zrange(marketPriceKeys.coinPoints, "+inf", "-inf", "BYSCORE", "REV", "LIMIT", 0, COIN_ROUNDS_SCANNED);
  const replies = (await readModel(() => pipeline.exec())) ?? [];
  const membersOf = (index: number): string[] => {
    const [error, members] = replies[index] ?? [null, []];
    if (error)
      throw unavailable("READ_MODEL_UNAVAILABLE", "the read model could not be read; retry shortly", undefined, error);
    return members as string[];
  };
  const pool = new Map<number, PricePoint>();
  subnets.forEach((netuid, index) => {
    const point = firstPoint(membersOf(index), () => true);
    if (point !== undefined) pool.set(netuid, point);
  });
  return { pool, usd: firstPoint(membersOf(subnets.length), (round) => round.timeMs <= timeMs)?.price };
}

/**
 * The first well-formed point among `members` (newest first) that `wanted` accepts. Parsed one by
 * one as needed: the newest round is nearly always the one, and each member looked at costs a hash
 * of its whole text (the parse cache's key); reading every coin round was a visible share of
 * data-query's CPU on bench/data's mix.
 */
function firstPoint(members: readonly string[], wanted: (point: PricePoint) => boolean): PricePoint | undefined {
  for (const member of members) {
    const point = pricePoint(member);
    if (point !== undefined && wanted(point)) return point;
  }
  return undefined;
}

// A pool's newest point is read by every balance read that values a position in that pool until the
// next snapshot, and a point never changes once written: its parse is kept (the whole snapshot is
// JSON, and parsing it was the largest single cost of valuing a position).
const PARSED_KEPT = 4_096;
const parsedPoints = new Map<string, PricePoint | undefined>();

function pricePoint(json: string): PricePoint | undefined {
  const kept = parsedPoints.get(json);
  if (kept !== undefined || parsedPoints.has(json)) return kept;
  if (parsedPoints.size >= PARSED_KEPT) parsedPoints.clear();
  const point = parsePricePoint(json);
  if (point) Object.freeze(point);
  parsedPoints.set(json, point);
  return point;
}

function parsePricePoint(json: string): PricePoint | undefined {
  try {
    const point = JSON.parse(json) as { b?: unknown; h?: unknown; t?: unknown; m?: { price?: unknown } };
    const price = point.m?.price;
    if (
      typeof price !== "string" ||
      !DECIMAL.test(price) ||
      typeof point.b !== "number" ||
      typeof point.h !== "string" ||
      typeof point.t !== "number"
    )
      return undefined;
    return { block: point.b, blockHash: point.h, timeMs: point.t, price };
  } catch {
    return undefined;
  }
}

function closeOf(json: string | undefined): string | undefined {
  if (json === undefined) return undefined;
  try {
    const close = (JSON.parse(json) as { c?: unknown }).c;
    return typeof close === "string" && DECIMAL.test(close) ? close : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Prices as they stood at given times (ms): the close of the newest market bucket that started
 * before the time (hourly buckets, which the market projection keeps 400 days, then daily ones).
 * `series` names the pool netuids wanted; the coin's USD price is always looked up.
 */
export async function pricesAt(
  redis: Redis,
  times: readonly number[],
  netuids: readonly number[],
): Promise<{ pool: Map<number, Array<string | undefined>>; usd: Array<string | undefined> }> {
  const subnets = [...new Set(netuids.filter((netuid) => netuid !== 0))];
  const keys = [
    ...subnets.flatMap((netuid) => [
      marketPriceKeys.poolBuckets(netuid, "1h"),
      marketPriceKeys.poolBuckets(netuid, "1d"),
    ]),
    marketPriceKeys.coinBuckets("1h"),
    marketPriceKeys.coinBuckets("1d"),
  ];
  const pipeline = redis.pipeline();
  for (const key of keys)
    for (const time of times)
      pipeline.zrange(key, `(${Math.floor(time / 1_000)}`, "-inf", "BYSCORE", "REV", "LIMIT", 0, 1);
  const replies = times.length === 0 ? [] : ((await readModel(() => pipeline.exec())) ?? []);
  const at = (keyIndex: number, timeIndex: number): string | undefined => {
    const [error, value] = replies[keyIndex * times.length + timeIndex] ?? [null, []];
    return error ? undefined : closeOf((value as string[])[0]);
  };
  const pool = new Map<number, Array<string | undefined>>();
  subnets.forEach((netuid, index) =>
    pool.set(
      netuid,
      times.map((_, timeIndex) => at(index * 2, timeIndex) ?? at(index * 2 + 1, timeIndex)),
    ),
  );
  if (netuids.includes(0))
    pool.set(
      0,
      times.map(() => ROOT_PRICE),
    );
  const coin = subnets.length * 2;
  return { pool, usd: times.map((_, timeIndex) => at(coin, timeIndex) ?? at(coin + 1, timeIndex)) };
}
