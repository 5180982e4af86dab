import { invalidArgument } from "@platform/errors";
import type { HistoryDb } from "@platform/history";
import type { AsOf } from "@platform/proto/common/v1/common";
import {
  type GetBalanceLatestRequest,
  type GetBalanceLatestResponse,
  Valuation,
} from "@platform/proto/data/v1/accounts";
import { type AccountBalance, NetworkStatsSnapshot } from "@platform/proto/events/v1/chain_network";
import { accountsKeys, marketKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { readAsOf, readModel } from "../shared/asOf.js";
import { asOfPinned, pinBlock, type Wanted, wantedOf } from "../shared/pastBlock.js";
import { decodePoint } from "../shared/readModel.js";
import { type SeriesStores, seriesAt } from "../shared/seriesAt.js";
import { parseAddress } from "./address.js";
import { balanceAt } from "./balanceAt.js";
import { type PricePoint, pricesAt, pricesAtBlock } from "./prices.js";
import { type BalanceAt, parsePoint, ZERO_BALANCE } from "./storedPoint.js";
import { usdOf, valueBalance } from "./valuation.js";

/**
 * The account's balance after the newest block in which it had activity (which is its balance at
 * the head: without activity it did not change; activity its partition delivered past the head is
 * not yet counted), valued at spot with the pool prices of the same block. A fresh address gets zeros. `as_of` is the accounts projection's head, or an older block
 * when the market's pool snapshots have not reached the head (see consistentBalance).
 */
export async function getBalanceLatest(
  redis: Redis,
  request: GetBalanceLatestRequest,
  history?: HistoryDb,
): Promise<GetBalanceLatestResponse> {
  const address = parseAddress(request.address);
  if (request.valuation !== Valuation.VALUATION_UNSPECIFIED && request.valuation !== Valuation.VALUATION_SPOT) {
    // UNSTAKE needs the pool's swap simulation with fees, which this read model cannot do exactly.
    throw invalidArgument("INVALID_PARAMETER", "valuation must be spot", { parameter: "valuation" });
  }
  const wanted = wantedOf(request.at);
  const { asOf, balance, prices, usd } =
    wanted === undefined
      ? await balanceAtHead(redis, address.publicKey, history)
      : await balanceAtPast({ redis, history }, address.publicKey, wanted);
  const valued = valueBalance(balance, (netuid) => prices.get(netuid)?.price);
  const listed = new Set(request.netuids);
  const positions = valued.positions.filter((entry) => listed.size === 0 || listed.has(entry.position.netuid));
  return {
    asOf,
    address,
    balanceFreeRao: valued.freeRao.toString(),
    balanceReservedRao: valued.reservedRao.toString(),
    balanceFrozenRao: valued.frozenRao.toString(),
    balanceStakedRao: valued.stakedRao.toString(),
    balanceStakedRootRao: valued.stakedRootRao.toString(),
    balanceStakedAlphaValueRao: valued.stakedAlphaValueRao.toString(),
    balanceTotalRao: valued.totalRao.toString(),
    valuation: Valuation.VALUATION_SPOT,
    ...(usd === undefined ? {} : { priceUsd: usd, balanceTotalUsd: usdOf(valued.totalRao, usd) }),
    positionsCount: positions.length,
    positions: positions.map((entry) => ({
      netuid: entry.position.netuid,
      ...(entry.position.hotkey === undefined ? {} : { hotkey: entry.position.hotkey }),
      stakeNalpha: entry.position.stakeNalpha,
      priceTao: entry.priceTao ?? "0",
      valueRao: entry.valueRao.toString(),
    })),
  };
}

/** What a balance answer values: the balance and the prices, all as of one block. */
interface ValuedAt {
  asOf: AsOf;
  balance: AccountBalance;
  prices: Map<number, PricePoint>;
  usd: string | undefined;
}

async function balanceAtHead(redis: Redis, publicKey: string, history: HistoryDb | undefined): Promise<ValuedAt> {
  const [head, [top]] = await Promise.all([
    readAsOf(redis, accountsKeys.head),
    readModel(() => redis.zrange(accountsKeys.points(publicKey), "-1", "-1")),
  ]);
  return consistentBalance(redis, publicKey, head, await standingAt(redis, publicKey, head, top, history), history);
}

/**
 * The balance at the block asked for, below the accounts head: the account's newest point at or
 * before it (Redis keeps the newest few, the history database every one), valued at the pools'
 * prices of the same block and the TAO/USD round standing at its time. The block is named by the
 * network snapshot taken at it.
 */
async function balanceAtPast(stores: SeriesStores, publicKey: string, wanted: Wanted): Promise<ValuedAt> {
  const { redis, history } = stores;
  const head = await readAsOf(redis, accountsKeys.head);
  const pin = await pinBlock(stores, wanted, Number(head.blockNumber));
  const { b: block, t: timeMs } = pin.stats;
  const point = await balanceAt(redis, publicKey, block, timeMs, history);
  const balance = point?.balance ?? ZERO_BALANCE;
  const netuids = [...new Set(balance.positions.map((position) => position.netuid).filter((netuid) => netuid !== 0))];
  const [pools, { usd }] = await Promise.all([
    seriesAt(stores, netuids.map(marketKeys.poolPoints), block),
    pricesAtBlock(redis, [], block, timeMs),
  ]);
  const prices = new Map<number, PricePoint>();
  pools.forEach((pool, index) => {
    if (pool?.m?.price !== undefined)
      prices.set(netuids[index]!, { block: pool.b, blockHash: pool.h, timeMs: pool.t, price: pool.m.price });
  });
  return {
    asOf: asOfPinned(decodePoint(pin.stats, NetworkStatsSnapshot).ref, pin),
    balance,
    prices,
    usd: usd ?? (await pricesAt(redis, [timeMs], [])).usd[0],
  };
}

/**
 * The account's point standing at the head, given its newest point: usually that one, but the
 * account's partition may have delivered blocks past the head (the oldest block every partition
 * delivered), and those are not yet part of the answer.
 */
async function standingAt(
  redis: Redis,
  publicKey: string,
  head: AsOf,
  newest: string | undefined,
  history: HistoryDb | undefined,
): Promise<BalanceAt | undefined> {
  const point = newest === undefined ? undefined : parsePoint(newest);
  if (point === undefined || BigInt(point.block) <= BigInt(head.blockNumber)) return point;
  return balanceAt(redis, publicKey, Number(head.blockNumber), Date.parse(head.timestamp), history);
}

/** Steps back at most this often; each step is one more round trip, and one is the usual worst case. */
const MAX_STEPS_BACK = 3;

/**
 * The balance and the prices valuing it, all as of one block. The accounts and market projections
 * consume the chain separately, so at a given moment the pools may not have reached the accounts
 * head (or, with NETWORK_SNAPSHOT_EVERY_BLOCKS above 1, the head is no snapshot block). The prices
 * are read at the head; when a pool's newest snapshot there is older, the answer moves back to that
 * snapshot's block, with the account's balance as it stood then, so every figure matches one chain read.
 */
async function consistentBalance(
  redis: Redis,
  publicKey: string,
  head: AsOf,
  newest: BalanceAt | undefined,
  history: HistoryDb | undefined,
): Promise<{ asOf: AsOf; balance: AccountBalance; prices: Map<number, PricePoint>; usd: string | undefined }> {
  let asOf = head;
  let point = newest;
  for (let step = 0; ; step++) {
    const block = Number(asOf.blockNumber);
    const balance = point?.balance ?? ZERO_BALANCE;
    const { pool, usd } = await pricesAtBlock(
      redis,
      balance.positions.map((position) => position.netuid),
      block,
      Date.parse(asOf.timestamp),
    );
    const oldest = [...pool.values()].reduce<PricePoint | undefined>(
      (min, price) => (min === undefined || price.block < min.block ? price : min),
      undefined,
    );
    if (oldest === undefined || oldest.block >= block || step === MAX_STEPS_BACK)
      return { asOf, balance, prices: pool, usd };
    asOf = {
      ...asOf,
      blockNumber: String(oldest.block),
      blockHash: oldest.blockHash,
      timestamp: new Date(oldest.timeMs).toISOString(),
    };
    point = await balanceAt(redis, publicKey, oldest.block, oldest.timeMs, history);
  }
}
