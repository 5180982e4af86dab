import { describe, expect, it } from "vitest";
import { decimalAtMostPattern, hexWordPattern } from "./numberPatterns.js";

const MAX_UINT256 = 2n ** 256n - 1n;

describe("decimalAtMostPattern", () => {
  it("takes exactly the decimals from 0 (or 1) to the bound, without leading zeros", () => {
    for (const max of [1n, 9n, 10n, 19n, 100n, 305n, 65_535n, 9_007_199_254_740_991n]) {
      const all = new RegExp(decimalAtMostPattern(max, { positive: false }));
      const positive = new RegExp(decimalAtMostPattern(max, { positive: true }));
      const upTo = Number(max < 2_000n ? max + 50n : 2_000n);
      for (let value = 0; value <= upTo; value += 1) {
        expect(all.test(String(value)), `${value} <= ${max}`).toBe(BigInt(value) <= max);
        expect(positive.test(String(value)), `0 < ${value} <= ${max}`).toBe(value > 0 && BigInt(value) <= max);
      }
      expect(all.test(String(max))).toBe(true);
      expect(all.test(String(max + 1n))).toBe(false);
      expect(all.test(`0${max}`)).toBe(false);
    }
  });

  it("bounds uint256 at its maximum", () => {
    const uint256 = new RegExp(decimalAtMostPattern(MAX_UINT256, { positive: true }));
    for (const value of [1n, 10n ** 77n, MAX_UINT256 - 1n, MAX_UINT256, MAX_UINT256 - 10n ** 40n])
      expect(uint256.test(String(value)), String(value)).toBe(true);
    for (const text of ["0", "00", "01", String(MAX_UINT256 + 1n), String(10n ** 78n), "1e3", " 1", "-1", ""])
      expect(uint256.test(text), text).toBe(false);
  });
});

describe("hexWordPattern", () => {
  const word = (value: bigint) => value.toString(16).padStart(64, "0");

  it("takes the words of numbers below 2^bits, any case, and refuses zero when asked", () => {
    for (const bits of [1, 8, 53, 160, 256]) {
      const any = new RegExp(`^${hexWordPattern({ bits, nonZero: false })}$`);
      const nonZero = new RegExp(`^${hexWordPattern({ bits, nonZero: true })}$`);
      const largest = 2n ** BigInt(bits) - 1n;
      for (const value of [0n, 1n, 2n, largest / 3n, largest - 1n, largest].filter((value) => value <= largest)) {
        expect(any.test(word(value)), `${value} < 2^${bits}`).toBe(true);
        expect(nonZero.test(word(value).toUpperCase()), `${value} < 2^${bits}, not zero`).toBe(value !== 0n);
      }
      // Only hex digits: a range like [1-f] would take ':' to '`' and every capital letter.
      expect(nonZero.test(`${"0".repeat(63)}K`)).toBe(false);
      expect(nonZero.test(`K${"0".repeat(63)}`)).toBe(false);
      if (bits < 256) {
        expect(any.test(word(largest + 1n))).toBe(false);
        expect(nonZero.test(word(2n ** 255n))).toBe(false);
      }
    }
  });
});
