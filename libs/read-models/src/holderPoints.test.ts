import { HolderPositions } from "@platform/proto/events/v1/chain_network";
import { holderSetDelta, holderSetDigest, sortHolderPositions } from "@platform/proto/holderSets";
import { describe, expect, it } from "vitest";
import { wholeHolderPoints } from "./holderPoints.js";
import type { SeriesPoint } from "./series.js";

const key = (name: string) => ({ ss58: name, publicKey: `0x${name.repeat(64)}` });
const set = (block: number, alphas: Record<string, string>): HolderPositions => {
  const positions = sortHolderPositions(
    Object.entries(alphas).map(([name, alpha]) => ({ coldkey: key(name), hotkey: key("h"), alphaNalpha: alpha })),
  );
  return HolderPositions.fromPartial({
    ref: { chainId: "945", blockNumber: String(block), blockHash: `0x${String(block).padStart(64, "0")}` },
    netuid: 3,
    coverage: 1,
    chunkIndex: 0,
    chunkCount: 1,
    positions,
    digest: holderSetDigest(positions),
  });
};
const point = (value: HolderPositions, delta = false): SeriesPoint => {
  const block = Number(value.ref!.blockNumber);
  return {
    o: block * 100_000,
    b: block,
    h: value.ref!.blockHash,
    t: block * 12_000,
    p: Buffer.from(HolderPositions.encode(value).finish()).toString("base64"),
    ...(delta ? { d: 1 as const } : {}),
  };
};
const deltaPoint = (before: HolderPositions, after: HolderPositions) =>
  point({ ...after, positions: holderSetDelta(before.positions, after.positions), baseDigest: before.digest! }, true);
const positionsOf = (whole: SeriesPoint) =>
  HolderPositions.decode(Buffer.from(whole.p, "base64")).positions.map((position) => position.alphaNalpha);

describe("wholeHolderPoints", () => {
  const at1 = set(1, { a: "10", b: "20" });
  const at2 = set(2, { a: "10", b: "25", c: "5" });
  const at3 = set(3, { b: "25", c: "6" });

  it("applies each delta to the set before it and gives whole points without the delta mark", () => {
    const whole = wholeHolderPoints([point(at1), deltaPoint(at1, at2), deltaPoint(at2, at3)]);
    expect(whole.map((entry) => [entry.b, entry.d])).toEqual([
      [1, undefined],
      [2, undefined],
      [3, undefined],
    ]);
    expect(whole.map(positionsOf)).toEqual([
      ["20", "10"],
      ["25", "10", "5"],
      ["25", "6"],
    ]);
    // What Redis holds for block 3: the delta's own fields with the whole positions, no base.
    expect(whole[2]!.p).toBe(point(at3).p);
  });

  it("skips a delta whose base is not the set before it, and those after it, until a keyframe", () => {
    const at4 = set(4, { z: "1" });
    const whole = wholeHolderPoints([point(at1), deltaPoint(at2, at3), deltaPoint(at3, set(4, {})), point(at4)]);
    expect(whole.map((entry) => entry.b)).toEqual([1, 4]);
  });

  it("skips deltas before the first keyframe and encodes only the newest `keep`", () => {
    const whole = wholeHolderPoints([deltaPoint(at1, at2), point(at2), deltaPoint(at2, at3)], 1);
    expect(whole.map((entry) => entry.b)).toEqual([3]);
    expect(positionsOf(whole[0]!)).toEqual(["25", "6"]);
  });

  it("leaves a series without deltas as it is", () => {
    const points = [point(at1), point(at2)];
    expect(wholeHolderPoints(points)).toEqual(points);
  });
});
