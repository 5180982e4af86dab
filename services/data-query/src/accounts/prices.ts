import type { Redis } from "@platform/store";
import { readModel } from "../shared/index.js";
import { marketPriceKeys } from "./keys.js";

/** Root (netuid 0) alpha is TAO 1:1. */
export const ROOT_PRICE = "1";

const DECIMAL = /^\d+(\.\d+)?$/;

/** The latest pool price (TAO per alpha) of each netuid, from the market projection; root is 1. */
export async function latestPoolPrices(redis: Redis, netuids: readonly number[]): Promise<Map<number, string>> {
  const prices = new Map<number, string>();
  const subnets = [...new Set(netuids.filter((netuid) => netuid !== 0))];
  if (netuids.includes(0)) prices.set(0, ROOT_PRICE);
  if (subnets.length === 0) return prices;
  const values = await readModel(() => redis.hmget(marketPriceKeys.poolPrice, ...subnets.map(String)));
  subnets.forEach((netuid, index) => {
    const value = values[index];
    if (typeof value === "string" && DECIMAL.test(value)) prices.set(netuid, value);
  });
  return prices;
}

/** The latest TAO/USD price, from the market projection's coin series; undefined when none. */
export async function latestUsdPrice(redis: Redis): Promise<string | undefined> {
  const [top] = await readModel(() => redis.zrange(marketPriceKeys.coinPoints, "-1", "-1"));
  return top === undefined ? undefined : measuredPrice(top);
}

function measuredPrice(json: string): string | undefined {
  try {
    const price = (JSON.parse(json) as { m?: { price?: unknown } }).m?.price;
    return typeof price === "string" && DECIMAL.test(price) ? price : undefined;
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
export async function pricesAt(redis: Redis, times: readonly number[], netuids: readonly number[]): Promise<{ pool: Map<number, Array<string | undefined>>; usd: Array<string | undefined> }> {
  const subnets = [...new Set(netuids.filter((netuid) => netuid !== 0))];
  const keys = [...subnets.flatMap((netuid) => [marketPriceKeys.poolBuckets(netuid, "1h"), marketPriceKeys.poolBuckets(netuid, "1d")]), marketPriceKeys.coinBuckets("1h"), marketPriceKeys.coinBuckets("1d")];
  const pipeline = redis.pipeline();
  for (const key of keys) for (const time of times) pipeline.zrange(key, `(${Math.floor(time / 1_000)}`, "-inf", "BYSCORE", "REV", "LIMIT", 0, 1);
  const replies = times.length === 0 ? [] : ((await readModel(() => pipeline.exec())) ?? []);
  const at = (keyIndex: number, timeIndex: number): string | undefined => {
    const [error, value] = replies[keyIndex * times.length + timeIndex] ?? [null, []];
    return error ? undefined : closeOf((value as string[])[0]);
  };
  const pool = new Map<number, Array<string | undefined>>();
  subnets.forEach((netuid, index) => pool.set(netuid, times.map((_, timeIndex) => at(index * 2, timeIndex) ?? at(index * 2 + 1, timeIndex))));
  if (netuids.includes(0)) pool.set(0, times.map(() => ROOT_PRICE));
  const coin = subnets.length * 2;
  return { pool, usd: times.map((_, timeIndex) => at(coin, timeIndex) ?? at(coin + 1, timeIndex)) };
}
