import { describe, expect, it } from "vitest";
import { assess, delayFor, type LockoutPolicy } from "./lockoutPolicy.js";

const policy: LockoutPolicy = {
  keyAddress: { slowAfter: 5, lockAfter: 10 },
  address: { slowAfter: 20 },
  windowMs: 900_000,
  lockMs: 900_000,
  maxDelayMs: 2_000,
};

describe("lockout policy", () => {
  it("answers at once below the slow-down threshold, then doubles the delay up to the cap", () => {
    expect([0, 4, 5, 6, 7, 8, 9, 40].map((failures) => delayFor(failures, 5, policy.maxDelayMs))).toEqual([
      0, 0, 200, 400, 800, 1_600, 2_000, 2_000,
    ]);
    expect(delayFor(1_000_000, 5, policy.maxDelayMs)).toBe(2_000);
  });

  it("locks a (key id, address) pair at its threshold, and never an address however many failures it has", () => {
    expect(assess({ keyAddress: 9, address: 0 }, policy)).toEqual({ locked: false, delayMs: 2_000 });
    expect(assess({ keyAddress: 10, address: 0 }, policy).locked).toBe(true);
    expect(assess({ keyAddress: 0, address: 49 }, policy)).toEqual({ locked: false, delayMs: 2_000 });
    expect(assess({ keyAddress: 0, address: 1_000_000 }, policy)).toEqual({ locked: false, delayMs: 2_000 });
    expect(assess({ keyAddress: 6, address: 21 }, policy)).toEqual({ locked: false, delayMs: 400 });
    expect(assess({ keyAddress: 0, address: 0 }, policy)).toEqual({ locked: false, delayMs: 0 });
  });
});
