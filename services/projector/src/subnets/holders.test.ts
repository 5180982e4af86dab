import { Finality } from "@platform/proto/common/v1/common";
import type { AccountId } from "@platform/proto/common/v1/network";
import { HolderCoverage } from "@platform/proto/common/v1/network";
import { HolderPositions } from "@platform/proto/events/v1/chain_network";
import { holderSetDelta, holderSetDigest, sortHolderPositions } from "@platform/proto/holderSets";
import { alphaOfMember, ordinalOf, rankHolders, rankMember, type SeriesPoint } from "@platform/read-models";
import { describe, expect, it } from "vitest";
import { foldSeries, type NewPoint, type SeriesOp } from "../shared/series.js";
import { addChunk, dropChunks, type PendingChunks, resolveHolderDeltas } from "./holders.js";

const account = (byte: string): AccountId => ({ ss58: `ss58-${byte}`, publicKey: `0x${byte.repeat(64)}` });
const chunk = (
  block: number,
  hash: string,
  index: number,
  count: number,
  positions: [string, string, string][],
): HolderPositions => ({
  ref: {
    chainId: "945",
    blockNumber: String(block),
    blockHash: hash,
    parentHash: "0x00",
    blockTimestamp: "2026-01-01T00:00:00.000Z",
    finality: Finality.FINALITY_LATEST,
  },
  netuid: 3,
  coverage: HolderCoverage.HOLDER_COVERAGE_COMPLETE,
  chunkIndex: index,
  chunkCount: count,
  positions: positions.map(([coldkey, hotkey, alpha]) => ({
    coldkey: account(coldkey),
    hotkey: account(hotkey),
    alphaNalpha: alpha,
  })),
});

describe("holder chunks", () => {
  it("assembles a set only once every chunk of its block is there, in chunk order", () => {
    const pending: PendingChunks = new Map();
    expect(addChunk(pending, chunk(10, "0xaa", 1, 3, [["b", "1", "20"]]))).toBeUndefined();
    expect(addChunk(pending, chunk(10, "0xaa", 0, 3, [["a", "1", "10"]]))).toBeUndefined();
    const set = addChunk(pending, chunk(10, "0xaa", 2, 3, [["c", "1", "30"]]));
    expect(set?.chunkCount).toBe(1);
    expect(set?.positions.map((position) => position.alphaNalpha)).toEqual(["10", "20", "30"]);
    expect(pending.size).toBe(0);
  });

  it("a completed block drops older incomplete blocks; a removal drops its block's chunks", () => {
    const pending: PendingChunks = new Map();
    addChunk(pending, chunk(10, "0xaa", 0, 2, [["a", "1", "10"]]));
    addChunk(pending, chunk(12, "0xcc", 0, 2, [["a", "1", "10"]]));
    expect(addChunk(pending, chunk(11, "0xbb", 0, 1, [["a", "1", "11"]]))).toBeDefined();
    expect([...pending.keys()]).toEqual(["0xcc:0"]);
    dropChunks(pending, "0xCC");
    expect(pending.size).toBe(0);
  });
});

describe("holder ranking", () => {
  it("sums a coldkey's hotkeys, skips zero holdings, and orders by alpha then key under lexicographic order", () => {
    const { coldkeys, positions } = rankHolders(
      chunk(10, "0xaa", 0, 1, [
        ["a", "1", "5"],
        ["b", "1", "7"],
        ["a", "2", "3"],
        ["c", "1", "0"],
        ["d", "2", "8"],
      ]),
    );
    const order = [...coldkeys].sort((left, right) => (left.member < right.member ? -1 : 1));
    expect(order.map((entry) => [entry.row.coldkey.ss58, entry.row.alpha])).toEqual([
      ["ss58-a", "8"],
      ["ss58-d", "8"],
      ["ss58-b", "7"],
    ]);
    expect(order[0]!.row.hotkeys.map((held) => held.alpha)).toEqual(["5", "3"]);
    expect(positions).toHaveLength(4);
    expect(alphaOfMember(order[0]!.member)).toBe(8n);
  });

  it("rank members order big alphas exactly", () => {
    const big = rankMember(18_446_744_073_709_551_615n, "x");
    const smaller = rankMember(18_446_744_073_709_551_614n, "x");
    expect(big < smaller).toBe(true);
  });
});

const whole = (block: number, hash: string, positions: [string, string, string][]): HolderPositions => {
  const set = chunk(block, hash, 0, 1, positions);
  return {
    ...set,
    positions: sortHolderPositions(set.positions),
    digest: holderSetDigest(sortHolderPositions(set.positions)),
  };
};
const deltaOf = (before: HolderPositions, after: HolderPositions): HolderPositions => ({
  ...after,
  positions: holderSetDelta(before.positions, after.positions),
  baseDigest: before.digest,
});
const point = (set: HolderPositions): NewPoint => {
  const block = Number(set.ref!.blockNumber);
  return {
    o: ordinalOf(block),
    b: block,
    h: set.ref!.blockHash,
    t: Date.parse(set.ref!.blockTimestamp),
    p: Buffer.from(HolderPositions.encode(set).finish()).toString("base64"),
  };
};
const stored = (set: HolderPositions): SeriesPoint => point(set);
const decoded = (op: SeriesOp | undefined) =>
  op?.kind === "add" ? HolderPositions.decode(Buffer.from(op.point.p, "base64")) : undefined;

const at10 = whole(10, "0x10", [
  ["a", "1", "50"],
  ["b", "1", "40"],
  ["c", "2", "30"],
]);
const at11 = whole(11, "0x11", [
  ["a", "1", "50"],
  ["b", "1", "45"],
  ["d", "2", "5"],
]);
const at12 = whole(12, "0x12", [
  ["b", "1", "45"],
  ["d", "2", "5"],
]);

describe("holder deltas", () => {
  it("applies deltas in order, each to the set before it, the first to the stored set", () => {
    const ops: SeriesOp[] = [
      { kind: "add", point: point(deltaOf(at10, at11)) },
      { kind: "add", point: point(deltaOf(at11, at12)) },
    ];
    const deltas = new Map(
      ops.map((op) => [
        (op as { point: NewPoint }).point,
        HolderPositions.decode(Buffer.from((op as { point: NewPoint }).point.p, "base64")),
      ]),
    );
    const skipped = resolveHolderDeltas({ loaded: { base: stored(at10), tail: [] }, ops }, deltas);
    expect(skipped).toEqual([]);
    expect(decoded(ops[0])?.positions).toEqual(at11.positions);
    expect(decoded(ops[1])?.positions).toEqual(at12.positions);
    expect(decoded(ops[1])?.baseDigest).toBeUndefined();
    expect(decoded(ops[1])?.digest).toEqual(at12.digest);
  });

  it("encodes only the sets among the newest the series keeps; the chain of deltas before them still applies in order", () => {
    // Ten blocks, each moving one position: a backlog's deltas for a series that keeps 4 points.
    const sets = [at10];
    for (let block = 11; block <= 20; block++)
      sets.push(
        whole(block, `0x${block}`, [
          ["a", "1", String(100 + block)],
          ["b", "1", "40"],
          ["c", "2", "30"],
        ]),
      );
    const ops: SeriesOp[] = sets
      .slice(1)
      .map((set, index) => ({ kind: "add", point: point(deltaOf(sets[index]!, set)) }));
    const deltas = new Map(
      ops.map((op) => [
        (op as { point: NewPoint }).point,
        HolderPositions.decode(Buffer.from((op as { point: NewPoint }).point.p, "base64")),
      ]),
    );
    const decodedSets = new Map<string, HolderPositions>();
    expect(resolveHolderDeltas({ loaded: { base: stored(at10), tail: [] }, ops }, deltas, decodedSets, 4)).toEqual([]);
    const points = ops.map((op) => (op as { point: NewPoint }).point);
    expect(points.map((entry) => entry.p.startsWith("unencoded:"))).toEqual([
      ...Array(6).fill(true),
      ...Array(4).fill(false),
    ]);
    // The four kept are the whole sets of blocks 17-20, as a store keeps them, and the rankings find them decoded.
    expect(ops.slice(6).map((op) => decoded(op)?.positions)).toEqual(sets.slice(7).map((set) => set.positions));
    expect(points.slice(6).map((entry) => decodedSets.get(entry.p)?.ref?.blockNumber)).toEqual([
      "17",
      "18",
      "19",
      "20",
    ]);
    // What the fold leaves in the series' window holds no placeholder.
    expect(
      foldSeries({ base: stored(at10), tail: [] }, ops, [])
        .points.slice(-4)
        .every((entry) => !entry.p.startsWith("unencoded:")),
    ).toBe(true);
  });

  it("after a reorganisation's removal, applies the new fork's delta to the set that stands again", () => {
    const fork11 = whole(11, "0xf1", [
      ["z", "9", "7"],
      ...at10.positions.map(
        (p) =>
          [p.coldkey!.publicKey.slice(2, 3), p.hotkey!.publicKey.slice(2, 3), p.alphaNalpha] as [
            string,
            string,
            string,
          ],
      ),
    ]);
    const ops: SeriesOp[] = [
      { kind: "remove", block: 11, hash: "0x11" },
      { kind: "add", point: point(deltaOf(at10, fork11)) },
    ];
    const delta = ops[1] as { point: NewPoint };
    const skipped = resolveHolderDeltas(
      { loaded: { base: stored(at10), tail: [stored(at11)] }, ops },
      new Map([[delta.point, HolderPositions.decode(Buffer.from(delta.point.p, "base64"))]]),
    );
    expect(skipped).toEqual([]);
    expect(decoded(ops[1])?.positions).toEqual(fork11.positions);
  });

  it("drops a delta whose base is not the newest set, and every one after it until a keyframe", () => {
    const ops: SeriesOp[] = [
      { kind: "add", point: point(deltaOf(at11, at12)) },
      { kind: "add", point: point(whole(13, "0x13", [["q", "1", "1"]])) },
    ];
    const delta = ops[0] as { point: NewPoint };
    const skipped = resolveHolderDeltas(
      { loaded: { base: stored(at10), tail: [] }, ops },
      new Map([[delta.point, HolderPositions.decode(Buffer.from(delta.point.p, "base64"))]]),
    );
    expect(skipped.map((set) => set.ref?.blockNumber)).toEqual(["12"]);
    expect(ops).toHaveLength(1);
    expect(decoded(ops[0])?.ref?.blockNumber).toBe("13");
    // No stored set at all: the delta has nothing to apply to.
    const lone: SeriesOp[] = [{ kind: "add", point: point(deltaOf(at10, at11)) }];
    const lonePoint = (lone[0] as { point: NewPoint }).point;
    expect(
      resolveHolderDeltas(
        { loaded: { base: undefined, tail: [] }, ops: lone },
        new Map([[lonePoint, HolderPositions.decode(Buffer.from(lonePoint.p, "base64"))]]),
      ),
    ).toHaveLength(1);
    expect(lone).toEqual([]);
  });
});
