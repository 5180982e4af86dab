import { invalidArgument } from "@platform/errors";
import { Valuation, type GetBalanceLatestRequest, type GetBalanceLatestResponse } from "@platform/proto/data/v1/accounts";
import type { Redis } from "@platform/store";
import { readAsOf, readModel } from "../shared/index.js";
import { parseAddress } from "./address.js";
import { accountsKeys } from "./keys.js";
import { latestPoolPrices, latestUsdPrice } from "./prices.js";
import { parsePoint, ZERO_BALANCE } from "./storedPoint.js";
import { usdOf, valueBalance } from "./valuation.js";

/**
 * The account's balance after the newest block in which it had activity (which is its balance at
 * the head: without activity it did not change), valued at spot. A fresh address gets zeros.
 * `as_of` is the projection head.
 */
export async function getBalanceLatest(redis: Redis, request: GetBalanceLatestRequest): Promise<GetBalanceLatestResponse> {
  const address = parseAddress(request.address);
  if (request.valuation !== Valuation.VALUATION_UNSPECIFIED && request.valuation !== Valuation.VALUATION_SPOT) {
    // UNSTAKE needs the pool's swap simulation with fees, which this read model cannot do exactly.
    throw invalidArgument("INVALID_PARAMETER", "valuation must be spot", { parameter: "valuation" });
  }
  const [asOf, [top]] = await Promise.all([readAsOf(redis, accountsKeys.head), readModel(() => redis.zrange(accountsKeys.points(address.publicKey), "-1", "-1"))]);
  const balance = (top === undefined ? undefined : parsePoint(top))?.balance ?? ZERO_BALANCE;
  const [prices, usd] = await Promise.all([latestPoolPrices(redis, balance.positions.map((position) => position.netuid)), latestUsdPrice(redis)]);
  const valued = valueBalance(balance, (netuid) => prices.get(netuid));
  const wanted = new Set(request.netuids);
  const positions = valued.positions.filter((entry) => wanted.size === 0 || wanted.has(entry.position.netuid));
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
