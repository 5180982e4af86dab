import { describe, expect, it } from "vitest";
import { paysFiller } from "./fillerPolicy.js";

describe("paysFiller", () => {
  it("takes orders that leave at least the minimum fee and refuses those that do not", () => {
    expect(paysFiller({ inputAmount: 100_000_000n, outputAmount: 99_850_000n }, 10)).toBe(true);
    expect(paysFiller({ inputAmount: 100_000_000n, outputAmount: 99_900_000n }, 10)).toBe(true);
    expect(paysFiller({ inputAmount: 100_000_000n, outputAmount: 99_900_001n }, 10)).toBe(false);
    expect(paysFiller({ inputAmount: 100_000_000n, outputAmount: 100_000_000n }, 1)).toBe(false);
    expect(paysFiller({ inputAmount: 100_000_000n, outputAmount: 100_000_000n }, 0)).toBe(true);
  });
});
