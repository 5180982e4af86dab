import { describe, expect, it } from "vitest";
import { bpsOf, convertDecimals, feeFor, priceExactInput, priceExactOutput } from "./feeModel.js";

const usdc = { input: 6, output: 6 };

describe("fee model", () => {
  it("charges fixed plus the proportional part rounded up, and delivers the rest", () => {
    // 100 USDC at 5 bps + 0.10 USDC: 0.05 + 0.10 = 0.15 USDC fee
    expect(priceExactInput(100_000_000n, { bps: 5, fixed: 100_000n }, usdc)).toEqual({
      inputAmount: 100_000_000n,
      outputAmount: 99_850_000n,
      fillerFee: 50_000n,
      gasFee: 100_000n,
      totalFee: 150_000n,
    });
    // 1 base unit at 5 bps is 0.0005 units: rounded up to a whole unit, in the filler's favour
    expect(feeFor(1n, { bps: 5, fixed: 0n })).toEqual({ fillerFee: 1n, gasFee: 0n, totalFee: 1n });
    expect(feeFor(20_000n, { bps: 5, fixed: 0n }).fillerFee).toBe(10n);
  });

  it("delivers nothing when the fee takes the whole input", () => {
    expect(priceExactInput(100n, { bps: 0, fixed: 100n }, usdc).outputAmount).toBe(0n);
    expect(priceExactInput(50n, { bps: 0, fixed: 100n }, usdc).outputAmount).toBe(0n);
  });

  it("converts between decimals, rounding down", () => {
    expect(convertDecimals(1_234_567n, 6, 18)).toBe(1_234_567_000_000_000_000n);
    expect(convertDecimals(1_999_999_999_999n, 18, 6)).toBe(1n);
    expect(priceExactInput(10n ** 18n, { bps: 0, fixed: 0n }, { input: 18, output: 6 }).outputAmount).toBe(1_000_000n);
  });

  it("finds the least input for an exact output, across decimals", () => {
    for (const fee of [
      { bps: 5, fixed: 100_000n },
      { bps: 9_999, fixed: 0n },
      { bps: 0, fixed: 0n },
      { bps: 37, fixed: 3n },
    ]) {
      for (const decimals of [usdc, { input: 18, output: 6 }, { input: 6, output: 18 }]) {
        for (const wanted of [1n, 7n, 99_850_000n, 123_456_789_012n]) {
          const priced = priceExactOutput(wanted, fee, decimals);
          expect(priced.outputAmount).toBeGreaterThanOrEqual(wanted);
          expect(priceExactInput(priced.inputAmount - 1n, fee, decimals).outputAmount).toBeLessThan(wanted);
        }
      }
    }
    expect(priceExactOutput(99_850_000n, { bps: 5, fixed: 100_000n }, usdc).inputAmount).toBe(100_000_000n);
  });

  it("expresses a fee in basis points of the input, rounded half up", () => {
    expect(bpsOf(150_000n, 100_000_000n)).toBe(15);
    expect(bpsOf(5n, 10_000n * 2n)).toBe(3); // 2.5 bps → 3
    expect(bpsOf(1n, 0n)).toBe(0);
  });
});
