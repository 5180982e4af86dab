import { describe, expect, it } from "vitest";
import { assess, delayFor, type LockoutPolicy } from "./lockoutPolicy.js";

const policy: LockoutPolicy = {
  key: { slowAfter: 5, lockAfter: 10 },
  address: { slowAfter: 20, lockAfter: 50 },
  windowMs: 900_000,
  lockMs: 900_000,
  maxDelayMs: 2_000,
};

describe("lockout policy", () => {
  it("answers at once below the slow-down threshold, then doubles the delay up to the cap", () => {
    expect([0, 4, 5, 6, 7, 8, 9, 40].map((failures) => delayFor(failures, policy.key, policy.maxDelayMs))).toEqual([
      0, 0, 200, 400, 800, 1_600, 2_000, 2_000,
    ]);
    expect(delayFor(1_000_000, policy.key, policy.maxDelayMs)).toBe(2_000);
  });

  it("locks a key id or an address at its threshold; the stricter counter decides", () => {
    expect(assess({ key: 9, address: 0 }, policy)).toEqual({ locked: false, delayMs: 2_000 });
    expect(assess({ key: 10, address: 0 }, policy).locked).toBe(true);
    expect(assess({ key: 0, address: 49 }, policy)).toEqual({ locked: false, delayMs: 2_000 });
    expect(assess({ key: 0, address: 50 }, policy).locked).toBe(true);
    expect(assess({ key: 6, address: 21 }, policy)).toEqual({ locked: false, delayMs: 400 });
    expect(assess({ key: 0, address: 0 }, policy)).toEqual({ locked: false, delayMs: 0 });
  });
});
