import { describe, expect, it } from "vitest";
import { addEpoch, decodeYieldIndex, encodeYieldIndex, epochIncrement, INDEX_SCALE } from "./yieldIndex.js";

const ONE = 10n ** BigInt(INDEX_SCALE);

describe("epochIncrement", () => {
  it("is the dividends less the take per unit of alpha stake, exactly", () => {
    // 1 alpha of dividends, take 0.18, 1,000 alpha staked: 0.00082 alpha per alpha.
    const increment = epochIncrement(
      { dividendsNalpha: "1000000000", take: "0.18", alphaStakeNalpha: "1000000000000", rootStakeRao: undefined },
      undefined,
    );
    expect(increment).toBe((82n * ONE) / 100_000n);
  });

  it("weighs root stake by TaoWeight: the rest of the dividends is split over alpha + w × root", () => {
    // 600 alpha + 0.25 × 1,600 TAO = 1,000 units of stake weight; no take.
    const increment = epochIncrement(
      { dividendsNalpha: "1000000000", take: "0", alphaStakeNalpha: "600000000000", rootStakeRao: "1600000000000" },
      "0.25",
    );
    expect(increment).toBe(ONE / 1_000n);
  });

  it("truncates at INDEX_SCALE digits and is 0 without dividends, without stake or at a take of 1", () => {
    const thirds = epochIncrement(
      { dividendsNalpha: "1", take: undefined, alphaStakeNalpha: "3", rootStakeRao: undefined },
      undefined,
    );
    expect(thirds).toBe(ONE / 3n);
    expect(
      epochIncrement({ dividendsNalpha: "0", take: "0", alphaStakeNalpha: "5", rootStakeRao: "0" }, undefined),
    ).toBe(0n);
    expect(
      epochIncrement({ dividendsNalpha: "5", take: "0", alphaStakeNalpha: "0", rootStakeRao: "0" }, undefined),
    ).toBe(0n);
    expect(
      epochIncrement({ dividendsNalpha: "5", take: "1", alphaStakeNalpha: "5", rootStakeRao: "0" }, undefined),
    ).toBe(0n);
  });
});

describe("addEpoch and the point codec", () => {
  it("adds each hotkey's increment to the standing index, keeps the others and starts new ones at 0", () => {
    const first = addEpoch(undefined, 100, new Map([["0xaa", 5n]]));
    const second = addEpoch(
      first,
      130,
      new Map([
        ["0xaa", 2n],
        ["0xbb", 7n],
      ]),
    );
    const third = addEpoch(second, 160, new Map([["0xbb", 1n]]));
    expect(third).toEqual({
      epoch: 160,
      index: new Map([
        ["0xaa", 7n],
        ["0xbb", 8n],
      ]),
    });
    // The standing index is not changed in place (a reorganised epoch's point is dropped whole).
    expect(first.index.get("0xaa")).toBe(5n);
    expect(decodeYieldIndex({ p: encodeYieldIndex(third) })).toEqual(third);
  });
});
