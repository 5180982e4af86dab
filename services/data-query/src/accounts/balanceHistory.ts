import { invalidArgument } from "@platform/errors";
import type { HistoryDb } from "@platform/history";
import { type AsOf, Interval } from "@platform/proto/common/v1/common";
import type {
  BalancePoint,
  GetBalanceHistoryRequest,
  GetBalanceHistoryResponse,
} from "@platform/proto/data/v1/accounts";
import { accountsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readAsOf, readModel } from "../shared/asOf.js";
import { bucketStarts, DURATION, intervalMs, resolveInterval } from "../shared/buckets.js";
import { decodeCursor, encodeCursor, queryScope } from "../shared/cursor.js";
import { orderOf, pageLimitOf } from "../shared/page.js";
import { resolveWindow } from "../shared/window.js";
import { parseAddress } from "./address.js";
import { readHistoryAtHead } from "./historyAtHead.js";
import { pointsForWindow } from "./historyReads.js";
import { pricesAt } from "./prices.js";
import { type BalanceAt, parsePoint } from "./storedPoint.js";
import { usdOf, type ValuedBalance, valueBalance } from "./valuation.js";

export const HISTORY_PAGE = { defaultLimit: 100, maxLimit: 1_000 } as const;
const INTERVALS = {
  allowed: [Interval.INTERVAL_ONE_HOUR, Interval.INTERVAL_ONE_DAY, Interval.INTERVAL_ONE_WEEK],
  fallback: Interval.INTERVAL_ONE_DAY,
} as const;
const MAX_SPAN: Partial<Record<Interval, number>> = {
  [Interval.INTERVAL_ONE_HOUR]: 31 * DURATION.DAY,
  [Interval.INTERVAL_ONE_DAY]: 5 * 366 * DURATION.DAY,
  [Interval.INTERVAL_ONE_WEEK]: 5 * 366 * DURATION.DAY,
};

/**
 * The reading each bucket ends with: the newest point before min(bucket end, window end), walking
 * both time-ordered lists once. A bucket with no point at or before its end gets undefined.
 */
export function bucketReadings<T extends { timeMs: number }>(
  points: readonly T[],
  bucketStartsMs: readonly number[],
  sizeMs: number,
  windowEndMs: number,
): Array<T | undefined> {
  const readings: Array<T | undefined> = [];
  let at = -1;
  for (const start of bucketStartsMs) {
    const end = Math.min(start + sizeMs, windowEndMs);
    while (at + 1 < points.length && points[at + 1]!.timeMs < end) at += 1;
    readings.push(at < 0 ? undefined : points[at]);
  }
  return readings;
}

/** A bucket's staking income: its reward transactions summed. */
export interface BucketRewards {
  rao: bigint;
  blocks: number;
  alphaByNetuid: Map<number, bigint>;
}

/**
 * The rewards of each bucket, from the balance points that carry them (AccountBalance.rewards: a
 * point at an epoch block carries that block's rewards, each as signed alpha and its TAO value at
 * the block): the points at or after max(bucket start, `fromMs`) and before min(bucket end,
 * window end), in one walk of both time-ordered lists.
 */
export function bucketRewards(
  points: readonly BalanceAt[],
  bucketStartsMs: readonly number[],
  sizeMs: number,
  fromMs: number,
  windowEndMs: number,
): BucketRewards[] {
  const sums: BucketRewards[] = [];
  let at = 0;
  for (const start of bucketStartsMs) {
    const [from, end] = [Math.max(start, fromMs), Math.min(start + sizeMs, windowEndMs)];
    const sum: BucketRewards = { rao: 0n, blocks: 0, alphaByNetuid: new Map() };
    while (at < points.length && points[at]!.timeMs < from) at += 1;
    for (; at < points.length && points[at]!.timeMs < end; at += 1) {
      const rewards = points[at]!.balance.rewards;
      if (rewards.length === 0) continue;
      sum.blocks += 1;
      for (const reward of rewards) {
        sum.rao += BigInt(reward.taoValueRao || "0");
        sum.alphaByNetuid.set(
          reward.netuid,
          (sum.alphaByNetuid.get(reward.netuid) ?? 0n) + BigInt(reward.alphaNalpha || "0"),
        );
      }
    }
    sums.push(sum);
  }
  return sums;
}

/**
 * The balance at the end of each UTC bucket of the window: the newest balance point at or before
 * the bucket's end (points exist for every block with activity, and the balance does not change
 * between them), so a bucket without activity carries the balance forward. Buckets start at the
 * account's first point and stop at the projection head; a fresh address has none. Subnet alpha is
 * valued at the pool price of the bucket's end (the market projection's hourly, else daily,
 * closes). A point's block_number and timestamp are those of the balance reading it shows;
 * change_total_rao is against the bucket before it (0 for the window's first bucket). reward_rao,
 * reward_blocks and each position's reward_alpha_nalpha sum the account's staking income (its
 * `reward` transactions) over the bucket's part of the window, so change_total_rao splits into
 * income, the account's own transactions and price moves.
 */
export async function getBalanceHistory(
  redis: Redis,
  request: GetBalanceHistoryRequest,
  nowMs: number = Date.now(),
  history?: HistoryDb,
): Promise<GetBalanceHistoryResponse> {
  const address = parseAddress(request.address);
  const interval = resolveInterval(request.window?.interval, INTERVALS);
  if (request.window?.blockStart !== undefined || request.window?.blockEnd !== undefined) {
    throw invalidArgument("INVALID_PARAMETER", "this route takes a time window (start, end), not block bounds", {
      parameter: "block_start",
    });
  }
  const rules = { defaultSpanMs: 30 * DURATION.DAY, maxSpanMs: MAX_SPAN[interval]! };
  // Checked before any read: a bad window is refused without touching the read model.
  resolveWindow(request.window, rules, nowMs);
  const limit = pageLimitOf(request.page, HISTORY_PAGE);
  const order = orderOf(request.order, "desc");
  const scope = queryScope([
    "accounts.balance.history",
    address.publicKey,
    interval,
    request.window?.start ?? null,
    request.window?.end ?? null,
    order,
  ]);
  const after = request.page?.cursor
    ? Number(decodeCursor(request.page.cursor, scope, { b: /^-?\d{1,16}$/ }).b)
    : undefined;

  // A default window ends at the later of now and the head's time: a chain's clock may run ahead
  // of this server's (a local chain building blocks faster than its slot time does).
  const windowAt = (head: AsOf) => {
    const window = resolveWindow(request.window, rules, Math.max(nowMs, Date.parse(head.timestamp) + 1));
    if (window.kind !== "time") throw new Error("unreachable: block bounds refused above");
    return { window, startS: Math.floor(window.startMs / 1_000), endS: Math.ceil(window.endMs / 1_000) };
  };
  // With a history database Redis keeps only the newest points: the window is read there, in one
  // snapshot at the head Redis names (historyAtHead.ts).
  const { asOf, value: read } =
    history === undefined
      ? await readAsOf(redis, accountsKeys.head).then(async (head) => {
          const { window, startS, endS } = windowAt(head);
          const stored = await pointsInRedis(redis, accountsKeys.points(address.publicKey), startS, endS);
          return { asOf: head, value: { window, startS, stored } };
        })
      : await readHistoryAtHead(redis, history, async (db, head, asOfHead) => {
          const { window, startS, endS } = windowAt(asOfHead);
          return { window, startS, stored: await pointsForWindow(db, address.publicKey, startS, endS, head) };
        });
  const { window, startS } = read;
  const { before, inside, first } = read.stored;
  const headMs = Date.parse(asOf.timestamp);
  // Points the account's partition delivered past the head (see balanceLatest) are not yet counted.
  const headBlock = BigInt(asOf.blockNumber);
  const points = [...before, ...inside]
    .map(parsePoint)
    .filter((point): point is BalanceAt => point !== undefined && BigInt(point.block) <= headBlock);
  const firstPoint = first[0] === undefined ? undefined : parsePoint(first[0]);
  const size = intervalMs(interval);
  // Buckets from the one holding the first reading, up to the one holding the head.
  const candidates =
    firstPoint === undefined
      ? []
      : bucketStarts(Math.max(window.startMs, firstPoint.timeMs), Math.min(window.endMs, headMs + 1), interval);

  const found = bucketReadings(points, candidates, size, window.endMs);
  // Every bucket from the first reading's on has one; the filter only guards the invariant.
  const buckets = candidates.filter((_, index) => found[index] !== undefined);
  const readings = found.filter((reading): reading is BalanceAt => reading !== undefined);
  // The window's points from its start on (the one before it only carries the balance in).
  const incomes = bucketRewards(points, buckets, size, startS * 1_000, window.endMs);

  // The page, as bucket indexes in the requested order, cut after the cursor's bucket.
  const indexes = buckets.map((_, index) => index);
  if (order === "desc") indexes.reverse();
  const rest =
    after === undefined
      ? indexes
      : indexes.filter((index) => (order === "asc" ? buckets[index]! > after : buckets[index]! < after));
  const pageIndexes = rest.slice(0, limit);
  const hasMore = rest.length > limit;
  // Valued: the page's buckets and, for change_total_rao, the bucket before each.
  const valuedIndexes = [...new Set(pageIndexes.flatMap((index) => (index > 0 ? [index - 1, index] : [index])))].sort(
    (a, b) => a - b,
  );
  const netuids = [
    ...new Set(valuedIndexes.flatMap((index) => readings[index]!.balance.positions.map((position) => position.netuid))),
  ];
  const ends = valuedIndexes.map((index) => Math.min(buckets[index]! + size, window.endMs, headMs + 1));
  const prices = await pricesAt(redis, ends, netuids);
  const valued = new Map(
    valuedIndexes.map((index, slot) => [
      index,
      {
        value: valueBalance(readings[index]!.balance, (netuid) => prices.pool.get(netuid)?.[slot]),
        usd: prices.usd[slot],
      },
    ]),
  );

  const pagePoints = pageIndexes.map((index) => {
    const { value, usd } = valued.get(index)!;
    const previous = valued.get(index - 1)?.value.totalRao ?? value.totalRao;
    return pointOf(buckets[index]!, readings[index]!, { value, usd, previousTotalRao: previous }, incomes[index]!);
  });
  const lastIndex = pageIndexes.at(-1);
  return {
    asOf,
    address,
    interval,
    points: pagePoints,
    page: {
      limit,
      hasMore,
      ...(hasMore && lastIndex !== undefined
        ? { nextCursor: encodeCursor(scope, { b: String(buckets[lastIndex]) }) }
        : {}),
    },
  };
}

/** One bucket's point: its reading, valued, and the income the bucket earned. */
function pointOf(
  bucketStartMs: number,
  reading: BalanceAt,
  valued: { value: ValuedBalance; usd: string | undefined; previousTotalRao: bigint },
  income: BucketRewards,
): BalancePoint {
  const { value, usd } = valued;
  const alpha = new Map<number, bigint>();
  for (const position of reading.balance.positions)
    alpha.set(position.netuid, (alpha.get(position.netuid) ?? 0n) + BigInt(position.stakeNalpha || "0"));
  // A subnet the account left during the bucket still shows what it earned there.
  for (const netuid of income.alphaByNetuid.keys()) if (!alpha.has(netuid)) alpha.set(netuid, 0n);
  return {
    bucketStart: new Date(bucketStartMs).toISOString(),
    blockNumber: reading.block,
    timestamp: new Date(reading.timeMs).toISOString(),
    balanceFreeRao: value.freeRao.toString(),
    balanceReservedRao: value.reservedRao.toString(),
    balanceStakedRao: value.stakedRao.toString(),
    balanceStakedRootRao: value.stakedRootRao.toString(),
    balanceStakedAlphaValueRao: value.stakedAlphaValueRao.toString(),
    balanceTotalRao: value.totalRao.toString(),
    ...(usd === undefined ? {} : { priceUsd: usd, balanceTotalUsd: usdOf(value.totalRao, usd) }),
    changeTotalRao: (value.totalRao - valued.previousTotalRao).toString(),
    positions: [...alpha]
      .sort(([a], [b]) => a - b)
      .map(([netuid, amount]) => ({
        netuid,
        alphaNalpha: amount.toString(),
        rewardAlphaNalpha: (income.alphaByNetuid.get(netuid) ?? 0n).toString(),
      })),
    rewardRao: income.rao.toString(),
    rewardBlocks: income.blocks,
  };
}

async function pointsInRedis(
  redis: Redis,
  key: string,
  startS: number,
  endS: number,
): Promise<{ before: string[]; inside: string[]; first: string[] }> {
  const [before, inside, first] = await Promise.all([
    readModel(() => redis.zrange(key, `(${startS}`, "-inf", "BYSCORE", "REV", "LIMIT", 0, 1)),
    readModel(() => redis.zrange(key, startS, `(${endS}`, "BYSCORE")),
    readModel(() => redis.zrange(key, "0", "0")),
  ]);
  return { before, inside, first };
}
