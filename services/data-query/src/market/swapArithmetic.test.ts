import { PoolMechanism } from "@platform/proto/common/v1/network";
import { describe, expect, it } from "vitest";
import { poolAfter, type SwapPool, swapAlphaForTao, swapTaoForAlpha } from "./swapArithmetic.js";

const dynamic = (taoIn: bigint, alphaIn: bigint): SwapPool => ({
  mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
  taoIn,
  alphaIn,
});
const TAO = 1_000_000_000n;

describe("the runtime's swap (spec 218 stake_utils.rs)", () => {
  it("buys alpha on the constant product, the fraction dropped", () => {
    // 1,000 alpha against 100 TAO; 10 TAO in: 1000 − 1000 × 100 ÷ 110 = 90.909090909090… alpha.
    expect(swapTaoForAlpha(dynamic(100n * TAO, 1_000n * TAO), 10n * TAO)).toBe(90_909_090_909n);
  });

  it("sells alpha on the constant product, the fraction dropped", () => {
    // 100 TAO against 1,000 alpha; 100 alpha in: 100 − 100 × 1000 ÷ 1100 = 9.0909090909… TAO.
    expect(swapAlphaForTao(dynamic(100n * TAO, 1_000n * TAO), 100n * TAO)).toBe(9_090_909_090n);
  });

  it("gives never more than the reserve, and 1 rao into a deep pool buys the exact share", () => {
    const pool = dynamic(5n * TAO, 7n * TAO);
    expect(swapTaoForAlpha(pool, (1n << 64n) - 1n)).toBeLessThan(7n * TAO);
    // 7e9 × 5e9 ÷ (5e9 + 1) = 6999999998.6 → the output is 7e9 − that = 1.4 → 1.
    expect(swapTaoForAlpha(pool, 1n)).toBe(1n);
  });

  it("saturates the product as I96F32 does: a pool above ~3.96e28 pays more than the plain formula", () => {
    const pool = dynamic(1_000_000n * TAO, 1_000_000n * TAO); // product 1e30, above the fixed point's range
    const exact = pool.alphaIn - (pool.alphaIn * pool.taoIn) / (pool.taoIn + 1_000n * TAO);
    const saturated = swapTaoForAlpha(pool, 1_000n * TAO);
    const max = ((1n << 127n) - 1n) >> 32n; // the product, capped (its integer part)
    expect(saturated).toBeGreaterThan(exact);
    // alphaIn − ⌊max × 2^32 ÷ ((taoIn + tao) × 2^32)⌋, within the fraction the fixed point keeps.
    expect(saturated).toBe(pool.alphaIn - max / (pool.taoIn + 1_000n * TAO) - 1n);
  });

  it("swaps a stable pool (root) 1:1 both ways", () => {
    const root: SwapPool = { mechanism: PoolMechanism.POOL_MECHANISM_STABLE, taoIn: 10n, alphaIn: 0n };
    expect(swapTaoForAlpha(root, 123n * TAO)).toBe(123n * TAO);
    expect(swapAlphaForTao(root, 45n)).toBe(45n);
  });

  it("answers the runtime's degenerate pools as it does: an empty TAO reserve gives the whole alpha reserve", () => {
    expect(swapTaoForAlpha(dynamic(0n, 50n * TAO), 1n)).toBe(50n * TAO);
    expect(swapTaoForAlpha(dynamic(10n * TAO, 0n), TAO)).toBe(0n);
  });

  it("refuses amounts that are not a u64", () => {
    expect(() => swapTaoForAlpha(dynamic(TAO, TAO), 1n << 64n)).toThrow(RangeError);
    expect(() => swapAlphaForTao(dynamic(TAO, TAO), -1n)).toThrow(RangeError);
  });

  it("leaves the reserves as the runtime's saturating u64 updates do", () => {
    const pool = dynamic(100n * TAO, 1_000n * TAO);
    expect(poolAfter(pool, "stake", 10n * TAO, 90_909_090_909n)).toMatchObject({
      taoIn: 110n * TAO,
      alphaIn: 1_000n * TAO - 90_909_090_909n,
    });
    expect(poolAfter(pool, "unstake", 100n * TAO, 9_090_909_090n)).toMatchObject({
      taoIn: 100n * TAO - 9_090_909_090n,
      alphaIn: 1_100n * TAO,
    });
  });
});
