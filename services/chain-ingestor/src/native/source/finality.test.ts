import { Finality } from "@platform/proto/common/v1/common";
import { describe, expect, it } from "vitest";
import { finalizedThrough, nativeFinality } from "./finality.js";

const depths = { safeDepth: 2, finalizedDepth: 4 };

describe("finalizedThrough", () => {
  it("is the finalized head, no higher than the finalized depth below the best block", () => {
    expect(finalizedThrough(100n, 90n, depths)).toBe(90n);
    // A node that finalizes at once (chopsticks): the depth decides.
    expect(finalizedThrough(100n, 100n, depths)).toBe(96n);
  });

  it("is unknown without a finalized head, or before any block is that deep", () => {
    expect(finalizedThrough(100n, undefined, depths)).toBeUndefined();
    expect(finalizedThrough(3n, 3n, depths)).toBeUndefined();
  });

  it("agrees with nativeFinality on every block around it", () => {
    for (const [best, head] of [
      [100n, 90n],
      [100n, 100n],
      [50n, 10n],
    ] as const) {
      const through = finalizedThrough(best, head, depths)!;
      for (let block = through - 3n; block <= best; block++) {
        const finalized = nativeFinality(block, best, head, depths) === Finality.FINALITY_FINALIZED;
        expect(finalized).toBe(block <= through);
      }
    }
  });
});
