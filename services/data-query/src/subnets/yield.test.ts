import { addEpoch, INDEX_SCALE } from "@platform/read-models";
import { describe, expect, it } from "vitest";
import { annualised, YEAR_MS, YIELD_WINDOWS, yieldOf } from "./yield.js";

const ONE = 10n ** BigInt(INDEX_SCALE);
const HOUR = 3_600_000;

describe("annualised", () => {
  it("scales a window's index difference to a 365-day year, simple (not compounded)", () => {
    // 0.0001 alpha per alpha in an hour: × 8,760 hours = 0.876 a year.
    expect(annualised(ONE / 10_000n + 5n, 5n, HOUR)).toBe("0.876");
    expect(annualised(ONE, 0n, YEAR_MS)).toBe("1");
    expect(annualised(7n, 7n, 86_400_000)).toBe("0");
  });
});

describe("yieldOf", () => {
  const start = addEpoch(undefined, 100, new Map([["0xaa", ONE / 1_000_000n]]));
  const end = addEpoch(
    start,
    400,
    new Map([
      ["0xaa", ONE / 10_000n],
      ["0xbb", ONE / 20_000n],
    ]),
  );

  it("gives each window covered by the history its rate, null (absent) for longer ones, and the covered window", () => {
    // Index points at the end, an hour and a day back; the history starts 3 days back.
    const points = { end, starts: [start, start, undefined, undefined], first: { b: 100, t: 1_000 } };
    const yields = yieldOf(points, "0xaa");
    expect(yields).toEqual({
      yield1h: "0.876",
      yield1d: "0.0365",
      coveredFromBlock: "100",
      coveredFromTime: "1970-01-01T00:00:01.000Z",
    });
    expect(yields?.yield7d).toBeUndefined();
    expect(yields?.yield30d).toBeUndefined();
    // A hotkey the window's start did not know had earned nothing before it.
    expect(yieldOf(points, "0xbb")?.yield1h).toBe("0.438");
    // One that never earned has a yield of 0 where the history covers the window.
    expect(yieldOf(points, "0xcc")?.yield1h).toBe("0");
  });

  it("has no yield before the subnet's first epoch is seen", () => {
    expect(yieldOf({ end: undefined, starts: [], first: undefined }, "0xaa")).toBeUndefined();
    expect(YIELD_WINDOWS.map((window) => window.field)).toEqual(["yield1h", "yield1d", "yield7d", "yield30d"]);
  });
});
