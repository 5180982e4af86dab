import type { Redis } from "@platform/store";
import type { Order } from "./page.js";

/** A sorted-set entry: its score as Redis prints it and its member. */
export interface ZsetEntry {
  score: string;
  member: string;
}

export interface ZsetScanOptions {
  order: Order;
  /** Exclusive position to continue after (a cursor's). */
  after?: ZsetEntry;
  /** Score bounds as Redis takes them ("-inf", "10", "(20"). */
  min: string;
  max: string;
  /** Entries read per round trip; 200 by default. */
  chunk?: number;
}

/**
 * Walks a sorted set in (score, member) order, ascending or descending, from an exclusive
 * position. Entries sharing the position's score are read whole and filtered by member, so a
 * position inside a run of equal scores loses and repeats nothing. Positions are keys, not
 * offsets: members added elsewhere in the set while a client pages never shift what it sees next.
 */
export async function* scanZset(redis: Redis, key: string, options: ZsetScanOptions): AsyncGenerator<ZsetEntry> {
  const chunk = options.chunk ?? 200;
  const ascending = options.order === "asc";
  let position = options.after;
  for (;;) {
    if (position !== undefined) {
      // Redis orders equal scores by member bytes; members here are ASCII, where JS agrees.
      const ties = pairs(await redis.zrange(key, position.score, position.score, "BYSCORE", "WITHSCORES"));
      const beyond = ascending
        ? ties.filter((entry) => entry.member > position!.member)
        : ties.filter((entry) => entry.member < position!.member).reverse();
      for (const entry of beyond) if (inBounds(entry.score, options)) yield entry;
    }
    const entries = ascending
      ? pairs(
          await redis.zrange(
            key,
            position === undefined ? options.min : `(${position.score}`,
            options.max,
            "BYSCORE",
            "LIMIT",
            0,
            chunk,
            "WITHSCORES",
          ),
        )
      : pairs(
          await redis.zrange(
            key,
            position === undefined ? options.max : `(${position.score}`,
            options.min,
            "BYSCORE",
            "REV",
            "LIMIT",
            0,
            chunk,
            "WITHSCORES",
          ),
        );
    const bounded = position === undefined ? entries : entries.filter((entry) => inBounds(entry.score, options));
    for (const entry of bounded) yield entry;
    const last = entries.at(-1);
    if (last === undefined || entries.length < chunk) return;
    position = last;
  }
}

/** Whether a score lies within the scan's bounds (a cursor may point outside them). */
function inBounds(score: string, options: ZsetScanOptions): boolean {
  const value = Number(score);
  return above(value, options.min) && below(value, options.max);
}

function above(value: number, bound: string): boolean {
  if (bound === "-inf") return true;
  if (bound === "+inf") return false;
  return bound.startsWith("(") ? value > Number(bound.slice(1)) : value >= Number(bound);
}

function below(value: number, bound: string): boolean {
  if (bound === "+inf") return true;
  if (bound === "-inf") return false;
  return bound.startsWith("(") ? value < Number(bound.slice(1)) : value <= Number(bound);
}

function pairs(flat: string[]): ZsetEntry[] {
  const entries: ZsetEntry[] = [];
  for (let index = 0; index + 1 < flat.length; index += 2)
    entries.push({ member: flat[index]!, score: flat[index + 1]! });
  return entries;
}
