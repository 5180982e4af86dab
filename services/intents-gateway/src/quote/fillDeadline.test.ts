import { describe, expect, it } from "vitest";
import { DEADLINE_SLACK_SECONDS, judgeFillDeadline, suggestFillDeadline } from "./fillDeadline.js";

const bounds = { minFillWindow: 30, maxFillBuffer: 86_400 };
const base = {
  originTimestamp: 1_000_000,
  destinationTimestamp: 1_000_000,
  bounds,
  quoteTtlSeconds: 60,
  preferredWindowSeconds: 900,
  fillTimeEstimateSeconds: 10,
};

describe("suggestFillDeadline", () => {
  it("is the destination clock plus the preferred window", () => {
    expect(suggestFillDeadline(base)).toBe(1_000_900);
    expect(suggestFillDeadline({ ...base, destinationTimestamp: 1_000_100 })).toBe(1_001_000);
  });

  it("never allows less than the fill time estimate", () => {
    expect(suggestFillDeadline({ ...base, fillTimeEstimateSeconds: 3_600 })).toBe(1_003_600);
  });

  it("stays openable until the quote expires when the window is short or the destination lags", () => {
    const earliest = 1_000_000 + 30 + 60 + DEADLINE_SLACK_SECONDS;
    expect(suggestFillDeadline({ ...base, preferredWindowSeconds: 5 })).toBe(earliest);
    expect(suggestFillDeadline({ ...base, destinationTimestamp: 999_000 })).toBe(earliest);
  });

  it("never passes the settler's upper bound, which wins over the lower one", () => {
    expect(suggestFillDeadline({ ...base, preferredWindowSeconds: 100_000 })).toBe(1_086_400);
    expect(suggestFillDeadline({ ...base, bounds: { minFillWindow: 30, maxFillBuffer: 60 } })).toBe(1_000_060);
  });
});

describe("judgeFillDeadline", () => {
  it("passes inside the bounds (both ends inclusive, as the contract), warns close to the lower one", () => {
    expect(judgeFillDeadline(1_000_900, 1_000_000, bounds, 60)).toEqual({
      status: "pass",
      earliest: 1_000_030,
      latest: 1_086_400,
      marginSeconds: 870,
    });
    expect(judgeFillDeadline(1_086_400, 1_000_000, bounds, 60).status).toBe("pass");
    expect(judgeFillDeadline(1_000_030, 1_000_000, bounds, 60).status).toBe("warn");
  });

  it("fails outside them", () => {
    expect(judgeFillDeadline(1_000_029, 1_000_000, bounds, 60)).toEqual({
      status: "fail",
      earliest: 1_000_030,
      latest: 1_086_400,
    });
    expect(judgeFillDeadline(1_086_401, 1_000_000, bounds, 60).status).toBe("fail");
  });
});
