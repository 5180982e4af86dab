import { describe, expect, it } from "vitest";
import { delayFor, failureDelayMs, type LockoutPolicy, overBudget } from "./lockoutPolicy.js";

const policy: LockoutPolicy = {
  address: { slowAfter: 20, budget: 5_000 },
  windowMs: 900_000,
  maxDelayMs: 2_000,
};

describe("lockout policy", () => {
  it("answers at once below the slow-down threshold, then doubles the delay up to the cap", () => {
    expect([0, 4, 5, 6, 7, 8, 9, 40].map((failures) => delayFor(failures, 5, policy.maxDelayMs))).toEqual([
      0, 0, 200, 400, 800, 1_600, 2_000, 2_000,
    ]);
    expect(delayFor(1_000_000, 5, policy.maxDelayMs)).toBe(2_000);
  });

  it("refuses an address only once it spent its budget", () => {
    expect(overBudget(4_999, policy)).toBe(false);
    expect(overBudget(5_000, policy)).toBe(true);
  });

  it("delays a failure by its address's count alone, so a known and an unknown key id wait alike", () => {
    expect(failureDelayMs(19, policy)).toBe(0);
    expect(failureDelayMs(21, policy)).toBe(400);
  });
});
