import { describe, expect, it } from "vitest";
import type { HolderPosition } from "./gen/events/v1/chain_network.js";
import { applyHolderSetDelta, holderSetDelta, holderSetDigest, sameDigest, sortHolderPositions } from "./holderSets.js";

const key = (seed: number) => `0x${seed.toString(16).padStart(64, "0")}`;
const position = (coldkey: number, hotkey: number, alpha: bigint): HolderPosition => ({
  coldkey: { ss58: `c${coldkey}`, publicKey: key(coldkey) },
  hotkey: { ss58: `h${hotkey}`, publicKey: key(1_000 + hotkey) },
  alphaNalpha: alpha.toString(),
});

/** A deterministic pseudo-random set: `size` positions over a few hotkeys, some of equal value. */
function randomSet(seed: number, size: number): HolderPosition[] {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state;
  };
  const byKey = new Map<string, HolderPosition>();
  for (let index = 0; index < size; index++) {
    const entry = position(next() % 500, next() % 7, BigInt(1 + (next() % 50)) * 1_000n);
    byKey.set(`${entry.coldkey!.publicKey}${entry.hotkey!.publicKey}`, entry);
  }
  return sortHolderPositions([...byKey.values()]);
}

describe("holder sets as deltas", () => {
  it("orders a set largest first, then by coldkey and hotkey", () => {
    const sorted = sortHolderPositions([
      position(2, 1, 5n),
      position(1, 2, 5n),
      position(1, 1, 5n),
      position(9, 9, 7n),
    ]);
    expect(sorted.map((entry) => [entry.coldkey!.ss58, entry.hotkey!.ss58])).toEqual([
      ["c9", "h9"],
      ["c1", "h1"],
      ["c1", "h2"],
      ["c2", "h1"],
    ]);
  });

  it("a delta applied to its base gives the next set, position for position, for many pairs of sets", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const before = randomSet(seed, 300);
      const after = randomSet(seed * 7 + 3, 300 + (seed % 5) * 40);
      const delta = holderSetDelta(before, after);
      expect(applyHolderSetDelta(before, delta)).toEqual(after);
      expect(sameDigest(holderSetDigest(applyHolderSetDelta(before, delta)), holderSetDigest(after))).toBe(true);
    }
  });

  it("carries only what moved: one changed position, one new, one gone", () => {
    const before = [position(1, 1, 50n), position(2, 1, 40n), position(3, 1, 30n)];
    const after = sortHolderPositions([position(1, 1, 50n), position(2, 1, 45n), position(4, 2, 10n)]);
    const delta = holderSetDelta(before, after);
    expect(delta.map((entry) => [entry.coldkey!.ss58, entry.alphaNalpha])).toEqual([
      ["c2", "45"],
      ["c4", "10"],
      ["c3", "0"],
    ]);
    expect(applyHolderSetDelta(before, delta)).toEqual(after);
    expect(holderSetDelta(after, after)).toEqual([]);
  });

  it("digests tell sets apart by any position, value or order", () => {
    const set = [position(1, 1, 50n), position(2, 1, 40n)];
    const digest = holderSetDigest(set);
    expect(sameDigest(digest, holderSetDigest([position(1, 1, 50n), position(2, 1, 40n)]))).toBe(true);
    expect(sameDigest(digest, holderSetDigest([position(1, 1, 50n), position(2, 1, 41n)]))).toBe(false);
    expect(sameDigest(digest, holderSetDigest([position(1, 1, 50n), position(2, 2, 40n)]))).toBe(false);
    expect(sameDigest(digest, holderSetDigest([...set].reverse()))).toBe(false);
    expect(sameDigest(digest, holderSetDigest(set.slice(0, 1)))).toBe(false);
  });
});
