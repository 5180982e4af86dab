import type { FullOrderData } from "@platform/devnet";

/**
 * Whether an order leaves the filler at least `minFeeBps` of its input. Input and output are compared
 * unit for unit, which holds for the devnet routes: each moves one token symbol, with the same
 * decimals on both chains. An order that pays nothing is left to expire, as a real filler would.
 */
export function paysFiller(order: Pick<FullOrderData, "inputAmount" | "outputAmount">, minFeeBps: number): boolean {
  return order.outputAmount * 10_000n <= order.inputAmount * (10_000n - BigInt(minFeeBps));
}
