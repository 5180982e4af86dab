import type { StakePosition } from "@platform/proto/common/v1/network";
import type { AccountBalance } from "@platform/proto/events/v1/chain_network";
import { formatDecimal, mulIntByDecimal, parseDecimal } from "../shared/decimal.js";

export interface ValuedPosition {
  position: StakePosition;
  /** TAO per alpha used; undefined when the market projection knows no price for the subnet. */
  priceTao: string | undefined;
  valueRao: bigint;
}

export interface ValuedBalance {
  freeRao: bigint;
  reservedRao: bigint;
  frozenRao: bigint;
  stakedRootRao: bigint;
  stakedAlphaValueRao: bigint;
  stakedRao: bigint;
  totalRao: bigint;
  positions: ValuedPosition[];
}

/**
 * Values a balance at spot: root positions (netuid 0) count 1:1, each subnet position is
 * stake_nalpha x the pool price (nalpha x TAO per alpha = rao, rounded toward zero). A subnet
 * without a known price counts 0 (its position reports no price). total = free + reserved + staked,
 * as the chain's own totals (frozen is part of free).
 */
export function valueBalance(balance: AccountBalance, priceOf: (netuid: number) => string | undefined): ValuedBalance {
  let stakedRootRao = 0n;
  let stakedAlphaValueRao = 0n;
  const positions = balance.positions.map((position): ValuedPosition => {
    const stake = BigInt(position.stakeNalpha || "0");
    if (position.netuid === 0) {
      stakedRootRao += stake;
      return { position, priceTao: "1", valueRao: stake };
    }
    const priceTao = priceOf(position.netuid);
    const valueRao = priceTao === undefined ? 0n : mulIntByDecimal(stake, priceTao);
    stakedAlphaValueRao += valueRao;
    return { position, priceTao, valueRao };
  });
  const freeRao = BigInt(balance.freeRao || "0");
  const reservedRao = BigInt(balance.reservedRao || "0");
  const stakedRao = stakedRootRao + stakedAlphaValueRao;
  return {
    freeRao,
    reservedRao,
    frozenRao: BigInt(balance.frozenRao || "0"),
    stakedRootRao,
    stakedAlphaValueRao,
    stakedRao,
    totalRao: freeRao + reservedRao + stakedRao,
    positions,
  };
}

/** USD of an amount in rao at a TAO/USD price: exact decimal (rao / 1e9 x price). */
export function usdOf(rao: bigint, usdPerTao: string): string {
  const price = parseDecimal(usdPerTao);
  return formatDecimal(rao * price.units, price.scale + 9);
}
