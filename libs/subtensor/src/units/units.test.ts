import { describe, expect, it } from "vitest";
import {
  formatRaoAsTao,
  formatScaled,
  formatU16Ratio,
  formatU64Ratio,
  parseScaled,
  raoToWei,
  U64_MAX,
  utf8Text,
  weiToRao,
} from "./units.js";

describe("units", () => {
  it("converts rao and wei at 1e9 (1 TAO = 1e9 rao = 1e18 wei)", () => {
    expect(raoToWei(1_000_000_000n)).toBe(10n ** 18n);
    expect(weiToRao(10n ** 18n)).toBe(1_000_000_000n);
    expect(weiToRao(1_999_999_999n)).toBe(1n);
  });

  it("formats a scaled bigint exactly, trimming trailing zeros", () => {
    expect(formatScaled(12_345_678_901_234_567n, 18)).toBe("0.012345678901234567");
    expect(formatScaled(1_500_000_000n, 9)).toBe("1.5");
    expect(formatRaoAsTao(21_000_000n * 10n ** 9n)).toBe("21000000");
    expect(formatScaled(0n, 18)).toBe("0");
    expect(formatScaled(-5n, 2)).toBe("-0.05");
    expect(formatScaled(7n, 0)).toBe("7");
    // Beyond a double's precision: no float on the way.
    expect(formatScaled(123_456_789_123_456_789_123n, 9)).toBe("123456789123.456789123");
  });

  it("parses what it formats and refuses to round", () => {
    expect(parseScaled("0.012345678901234567", 18)).toBe(12_345_678_901_234_567n);
    expect(parseScaled("1.5", 9)).toBe(1_500_000_000n);
    expect(parseScaled("-2", 3)).toBe(-2_000n);
    expect(() => parseScaled("0.1234", 3)).toThrow(/more than 3 decimal places/);
    expect(() => parseScaled("1e5", 3)).toThrow(/not a decimal number/);
  });

  it("normalises u16 ratios to 8 truncated decimals, telling neighbours apart", () => {
    expect(formatU16Ratio(11_796)).toBe("0.17999542");
    expect(formatU16Ratio(65_535)).toBe("1");
    expect(formatU16Ratio(65_534)).toBe("0.99998474");
    expect(formatU16Ratio(0)).toBe("0");
    expect(formatU16Ratio(1)).toBe("0.00001525");
    expect(() => formatU16Ratio(65_536)).toThrow(/not a u16/);
  });

  it("normalises u64 ratios (TaoWeight) over u64::MAX", () => {
    expect(formatU64Ratio(U64_MAX)).toBe("1");
    expect(formatU64Ratio(971_718_665_099_567_868n)).toMatch(/^0\.0526\d+$/);
  });

  it("reads storage bytes as UTF-8 without failing on invalid sequences", () => {
    expect(utf8Text(new TextEncoder().encode("seed-α"))).toBe("seed-α");
    expect(utf8Text(Uint8Array.of(0x61, 0xff))).toBe("a\ufffd");
  });
});
