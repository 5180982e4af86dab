import { describe, expect, it } from "vitest";
import { shareValue } from "./stakeInfo.js";

const bits = (value: bigint) => value << 64n;

describe("shareValue", () => {
  it("values spec 218's u64 shares in I96F32, as its runtime API does: to the nalpha", () => {
    // A position of the e2e run (block 14, subnet 3): StakeInfoRuntimeApi answered 132,295,065;
    // the share pool's 64.64 arithmetic would give 132,295,066.
    expect(shareValue(11_609_253_665n, bits(496_065_939n), bits(5_652_997n), "i96f32")).toBe(132_295_065n);
    expect(shareValue(11_609_253_665n, bits(496_065_939n), bits(5_652_997n), "u64f64")).toBe(132_295_066n);
    expect(shareValue(1_999_999_998n, bits(318_205_328n), bits(298_015_681n), "i96f32")).toBe(1_873_103_021n);
    expect(shareValue(0n, bits(10n), bits(10n), "i96f32")).toBe(0n);
    expect(shareValue(1_000n, 0n, bits(10n), "i96f32")).toBe(0n);
  });

  it("values shares as the runtime's share pool does: total alpha / total shares x shares, truncated", () => {
    // The runtime API's answer for a seeded position (spec 218 keeps shares as u64).
    expect(shareValue(1_999_999_998n, bits(318_205_328n), bits(298_015_681n))).toBe(1_873_103_021n);
    expect(shareValue(10n, bits(3n), bits(1n))).toBe(3n);
    expect(shareValue(1_000n, bits(1_000n), bits(1_000n))).toBe(1_000n);
  });

  it("is 0 without shares, without a denominator, or when the value per share overflows", () => {
    expect(shareValue(1_000n, bits(10n), 0n)).toBe(0n);
    expect(shareValue(1_000n, 0n, bits(10n))).toBe(0n);
    // 2^64 alpha per share does not fit the fixed-point quotient: the runtime's checked_div gives 0.
    expect(shareValue(1n << 63n, 1n << 63n, bits(1n))).toBe(0n);
  });

  it("saturates at u64::MAX", () => {
    expect(shareValue((1n << 64n) - 1n, bits(1n), bits(1n))).toBe((1n << 64n) - 1n);
  });
});
