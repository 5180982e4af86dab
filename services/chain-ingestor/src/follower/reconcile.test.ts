import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import type { BlockHeader } from "./blocks.js";
import { extendWindow, findCommonAncestor, linkHeaders, splitAtAncestor } from "./reconcile.js";

/** A header chain from `from` to `to` on fork `fork`, whose first block builds on `parent`. */
function chain(from: number, to: number, fork: string, parent: Hex = hash(from - 1, "a")): BlockHeader[] {
  const headers: BlockHeader[] = [];
  let parentHash = parent;
  for (let number = from; number <= to; number++) {
    const header = { number: BigInt(number), hash: hash(number, fork), parentHash, timestamp: BigInt(1_000 + number) };
    headers.push(header);
    parentHash = header.hash;
  }
  return headers;
}

function hash(number: number, fork: string): Hex {
  return `0x${fork.repeat(2)}${number.toString(16).padStart(62, "0")}` as Hex;
}

const ref = (header: BlockHeader) => ({ number: header.number, hash: header.hash });

describe("linkHeaders", () => {
  it("accepts headers that build on the tip and on each other", () => {
    const kept = chain(1, 5, "a");
    const next = chain(6, 9, "a", kept[4]!.hash);
    expect(linkHeaders(ref(kept[4]!), next)).toEqual({ linked: next, tipMismatch: false });
  });

  it("accepts any first header when nothing was kept yet", () => {
    const headers = chain(0, 3, "a");
    expect(linkHeaders(undefined, headers).linked).toHaveLength(4);
  });

  it("reports a tip that is no longer canonical", () => {
    const kept = chain(1, 5, "a");
    const fork = chain(6, 7, "b", hash(5, "b"));
    expect(linkHeaders(ref(kept[4]!), fork)).toEqual({ linked: [], tipMismatch: true });
    // A gap (the node skipped heights) counts as not building on the tip either.
    expect(linkHeaders(ref(kept[4]!), chain(7, 8, "a", kept[4]!.hash)).tipMismatch).toBe(true);
  });

  it("keeps only the linked prefix when the node switched forks while a range was read", () => {
    const kept = chain(1, 5, "a");
    const before = chain(6, 8, "a", kept[4]!.hash);
    const after = chain(9, 10, "b", hash(8, "b"));
    expect(linkHeaders(ref(kept[4]!), [...before, ...after])).toEqual({ linked: before, tipMismatch: false });
  });
});

describe("findCommonAncestor", () => {
  const kept = chain(10, 20, "a").map(ref);

  it("finds the highest kept block the node still has", () => {
    const canonical = new Map(
      [...chain(10, 16, "a"), ...chain(17, 22, "b", hash(16, "a"))].map(
        (header) => [header.number, header.hash] as const,
      ),
    );
    expect(findCommonAncestor(kept, canonical)).toEqual(kept[6]);
  });

  it("finds the tip itself when only the node's later blocks differ", () => {
    const canonical = new Map(chain(10, 20, "a").map((header) => [header.number, header.hash] as const));
    expect(findCommonAncestor(kept, canonical)).toEqual(kept[10]);
  });

  it("handles a chain rolled back below the tip (heights the node does not have)", () => {
    const canonical = new Map(chain(10, 14, "a").map((header) => [header.number, header.hash] as const));
    expect(findCommonAncestor(kept, canonical)).toEqual(kept[4]);
  });

  it("gives up when the fork is deeper than the window", () => {
    const canonical = new Map(chain(10, 20, "b", hash(9, "b")).map((header) => [header.number, header.hash] as const));
    expect(findCommonAncestor(kept, canonical)).toBeUndefined();
  });
});

describe("window", () => {
  const entries = chain(1, 6, "a").map((header) => ({ block: ref(header), events: [Number(header.number)] }));

  it("keeps the newest blocks up to its size", () => {
    expect(extendWindow(entries.slice(0, 4), entries.slice(4), 3).map((entry) => entry.block.number)).toEqual([
      4n,
      5n,
      6n,
    ]);
  });

  it("splits at the common ancestor into kept and orphaned blocks with their events", () => {
    const { kept, orphaned } = splitAtAncestor(entries, entries[2]!.block);
    expect(kept.map((entry) => entry.events[0])).toEqual([1, 2, 3]);
    expect(orphaned.map((entry) => entry.events[0])).toEqual([4, 5, 6]);
    expect(() => splitAtAncestor(entries, { number: 3n, hash: hash(3, "b") })).toThrow(/not in the window/);
  });
});
