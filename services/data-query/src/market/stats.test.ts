import { describe, expect, it } from "vitest";
import { chainCounts } from "./statsFigures.js";

describe("chainCounts", () => {
  it("answers the projection's running counts with the block they start from", () => {
    expect(chainCounts({}, { s: 1, x: 120, r: 9 })).toEqual({
      extrinsicsCount: "120",
      transfersCount: "9",
      countedSinceBlock: "1",
    });
    expect(chainCounts({}, { s: 4_200_000, x: 0, r: 0 })).toEqual({
      extrinsicsCount: "0",
      transfersCount: "0",
      countedSinceBlock: "4200000",
    });
  });

  it("prefers a source's own totals over the chain's history, counted from genesis", () => {
    expect(chainCounts({ extrinsicsCount: "500", transfersCount: "40" }, { s: 9, x: 1, r: 1 })).toEqual({
      extrinsicsCount: "500",
      transfersCount: "40",
      countedSinceBlock: "0",
    });
  });

  it("answers no count before a block was counted", () => {
    expect(chainCounts({}, undefined)).toEqual({});
    expect(chainCounts({ extrinsicsCount: "500" }, undefined)).toEqual({});
  });
});
