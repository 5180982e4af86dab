import type { HistoryDb } from "@platform/history";
import { accountsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readModel } from "../shared/asOf.js";
import { pointAtOrBefore } from "./historyReads.js";
import { type BalanceAt, parsePoint } from "./storedPoint.js";

const PAGE = 8;

/**
 * The account's balance point standing at `block` (its newest point at or before it), given the
 * block's time. Points are scored by block time in seconds and several blocks can share a second,
 * so the points at or before that second are walked newest first until one is at or before the block.
 * Redis keeps only an account's newest points when the history database holds them all: a block
 * older than those is read there.
 */
export async function balanceAt(
  redis: Redis,
  publicKey: string,
  block: number,
  timeMs: number,
  history?: HistoryDb,
): Promise<BalanceAt | undefined> {
  const hot = await balanceInRedis(redis, publicKey, block, timeMs);
  if (hot !== undefined || history === undefined) return hot;
  const member = await pointAtOrBefore(history, publicKey, block);
  return member === undefined ? undefined : parsePoint(member);
}

async function balanceInRedis(
  redis: Redis,
  publicKey: string,
  block: number,
  timeMs: number,
): Promise<BalanceAt | undefined> {
  const key = accountsKeys.points(publicKey);
  const second = Math.floor(timeMs / 1_000);
  for (let offset = 0; ; offset += PAGE) {
    const members = await readModel(() => redis.zrange(key, second, "-inf", "BYSCORE", "REV", "LIMIT", offset, PAGE));
    for (const member of members) {
      const point = parsePoint(member);
      if (point !== undefined && Number(point.block) <= block) return point;
    }
    if (members.length < PAGE) return undefined;
  }
}
