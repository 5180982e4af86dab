import { Finality } from "@platform/proto/common/v1/common";
import { PoolSnapshot } from "@platform/proto/events/v1/chain_network";
import { ordinalOf, type SeriesPoint } from "@platform/read-models";
import { describe, expect, it } from "vitest";
import { runningVolumeOf } from "../shared/runningVolume.js";
import { foldSeries, type NewPoint, type SeriesOp } from "../shared/series.js";
import { blockVolumeOf, poolMeasure } from "./decode.js";

const T0 = Date.UTC(2026, 0, 1);
const hashOf = (block: number, fork = "a") => `0x${fork}${block}`;
/** Beyond 2^53: a float would round the sums. */
const BIG = 2n ** 60n + 1n;

/** A pool point of `block` on `fork`, building on its parent on `parentFork`, that swapped `volume` rao. */
const pool = (block: number, volume: bigint, fork = "a", parentFork = fork): NewPoint => ({
  o: ordinalOf(block),
  b: block,
  h: hashOf(block, fork),
  t: T0 + block * 12_000,
  p: `pool-${block}-${fork}`,
  m: { price: "1" },
  u: { ph: hashOf(block - 1, parentFork), v: volume.toString() },
});
const add = (point: NewPoint): SeriesOp => ({ kind: "add", point });
const remove = (block: number, fork = "a"): SeriesOp => ({ kind: "remove", block, hash: hashOf(block, fork) });

/** Folds ops onto a series held in memory, as the store does with the tail it loads (seriesStore.ts). */
function run(stored: SeriesPoint[], ops: SeriesOp[], keep = Number.POSITIVE_INFINITY): SeriesPoint[] {
  const lowest = Math.min(...ops.map((op) => (op.kind === "add" ? op.point.o : ordinalOf(op.block))));
  const below = stored.filter((point) => point.o < lowest);
  const folded = foldSeries({ base: below.at(-1), tail: stored.filter((point) => point.o >= lowest) }, ops, ["5m"]);
  return [...below, ...folded.points].slice(-keep);
}
const volumes = (series: SeriesPoint[]) => series.map((point) => [point.w, point.m?.cumulative]);
const newest = (series: SeriesPoint[]) => series.at(-1)?.w;

describe("runningVolumeOf", () => {
  const parent = { b: 9, h: hashOf(9), w: { s: 0, v: BIG.toString() } };
  it("goes on from the block's parent, exactly beyond 2^53", () => {
    expect(runningVolumeOf({ b: 10, u: { ph: hashOf(9), v: BIG.toString() } }, parent)).toEqual({
      s: 0,
      v: (2n * BIG).toString(),
    });
  });
  it("starts a new run at the block when the point before is not its parent, or kept no volume", () => {
    const own = { b: 10, u: { ph: hashOf(9), v: "3" } };
    expect(runningVolumeOf(own, undefined)).toEqual({ s: 10, v: "3" });
    expect(runningVolumeOf(own, { ...parent, h: hashOf(9, "b") })).toEqual({ s: 10, v: "3" });
    expect(runningVolumeOf(own, { ...parent, b: 8 })).toEqual({ s: 10, v: "3" });
    expect(runningVolumeOf(own, { b: 9, h: hashOf(9) })).toEqual({ s: 10, v: "3" });
  });
  it("gives nothing for a point without a block volume", () => {
    expect(runningVolumeOf({ b: 10 }, parent)).toBeUndefined();
  });
});

describe("running volume in the pool series fold", () => {
  const chain = [pool(0, 0n), pool(1, 5n), pool(2, BIG), pool(3, 7n)];

  it("sums every block from the first one folded, each point carrying the volume through its block", () => {
    const series = run([], chain.map(add));
    expect(volumes(series)).toEqual([
      [{ s: 0, v: "0" }, "0"],
      [{ s: 0, v: "5" }, "5"],
      [{ s: 0, v: (5n + BIG).toString() }, (5n + BIG).toString()],
      [{ s: 0, v: (12n + BIG).toString() }, (12n + BIG).toString()],
    ]);
    // One batch or one block a batch: the same volumes.
    expect(chain.reduce<SeriesPoint[]>((stored, point) => run(stored, [add(point)]), [])).toEqual(series);
    // The five-minute bucket keeps the counter before its first point and at close: all 4 blocks.
    expect(series.at(-1)?.a?.["5m"]).toMatchObject({ v0: "0", v1: (12n + BIG).toString() });
  });

  it("counts a replayed block once", () => {
    const series = run([], chain.map(add));
    expect(run(series, [add(chain[2]!), add(chain[3]!)])).toEqual(series);
  });

  it("takes an orphaned block's volume back and counts the new branch's instead, in one batch or two", () => {
    const series = run([], chain.map(add));
    const branch = [pool(2, 11n, "b", "a"), pool(3, 1n, "b"), pool(4, 2n, "b")];
    const together = run(series, [remove(3), remove(2), ...branch.map(add)]);
    expect(together.map((point) => point.h)).toEqual([
      hashOf(0),
      hashOf(1),
      hashOf(2, "b"),
      hashOf(3, "b"),
      hashOf(4, "b"),
    ]);
    expect(newest(together)).toEqual({ s: 0, v: "19" });
    expect(together.at(-1)?.m?.cumulative).toBe("19");

    // The follower commits the removal first; until the new branch comes, block 1's volume stands.
    const removed = run(series, [remove(3), remove(2)]);
    expect(newest(removed)).toEqual({ s: 0, v: "5" });
    expect(removed.at(-1)?.a?.["5m"]).toMatchObject({ v0: "0", v1: "5" });
    expect(run(removed, branch.map(add))).toEqual(together);
    // A block re-read on the other branch without a removal replaces its point and its volume; the
    // old branch's block above it no longer builds on it, so its run restarts at itself.
    const replaced = run(series, [add(branch[0]!)]);
    expect(replaced.map((point) => point.w)).toEqual([
      { s: 0, v: "0" },
      { s: 0, v: "5" },
      { s: 0, v: "16" },
      { s: 3, v: "7" },
    ]);
  });

  it("starts a new run after a gap, while the counter the buckets keep goes on and never goes down", () => {
    const series = run([], chain.map(add));
    const after = run(series, [add(pool(7, 2n))]);
    expect(newest(after)).toEqual({ s: 7, v: "2" });
    const counter = after.map((point) => BigInt(point.m!.cumulative!));
    expect(counter.at(-1)).toBe(14n + BIG);
    for (const [index, value] of counter.entries()) if (index > 0) expect(value >= counter[index - 1]!).toBe(true);
    const bucket = after.at(-1)!.a!["5m"]!;
    expect(BigInt(bucket.v1!) - BigInt(bucket.v0!)).toBe(14n + BIG);
  });

  it("starts a run at a point without a block volume, and says which block it starts from", () => {
    const later = run([], [add({ ...pool(500, 4n), u: undefined }), add(pool(501, 1n)), add(pool(502, 2n))]);
    expect(later.map((point) => point.w)).toEqual([undefined, { s: 501, v: "1" }, { s: 501, v: "3" }]);
  });

  it("goes on from the point below a batch when older points were trimmed", () => {
    const trimmed = run([], chain.map(add), 1);
    expect(trimmed).toHaveLength(1);
    expect(newest(run(trimmed, [add(pool(4, 10n))]))).toEqual({ s: 0, v: (22n + BIG).toString() });
  });
});

describe("a pool snapshot's block volume", () => {
  const ref = {
    chainId: "945",
    blockNumber: "12",
    blockHash: "0xAB12",
    parentHash: "0xCD11",
    blockTimestamp: new Date(T0).toISOString(),
    finality: Finality.FINALITY_LATEST,
  };
  const snapshot = (fields: Partial<PoolSnapshot>): PoolSnapshot =>
    PoolSnapshot.fromPartial({ ref, netuid: 1, taoInRao: "1", alphaInNalpha: "1", priceTao: "1", ...fields });

  it("goes on the point with the parent's hash when the snapshot keeps no SubnetVolume", () => {
    expect(blockVolumeOf(snapshot({ blockVolumeRao: "42" }))).toEqual({ ph: "0xcd11", v: "42" });
    expect(poolMeasure(snapshot({ blockVolumeRao: "42" })).cumulative).toBeUndefined();
  });

  it("is left out where the snapshot has SubnetVolume (its counter) or no block volume", () => {
    const withTotal = snapshot({ blockVolumeRao: "42", volumeTotalRao: "900" });
    expect(blockVolumeOf(withTotal)).toBeUndefined();
    expect(poolMeasure(withTotal).cumulative).toBe("900");
    expect(blockVolumeOf(snapshot({}))).toBeUndefined();
  });

  it("carries the block's order flow beside its volume, where the snapshot has one", () => {
    const blockFlow = {
      buyVolumeRao: "40",
      sellVolumeRao: "2",
      buys: 3,
      sells: 1,
      buyers: ["0x01"],
      sellers: ["0x02"],
    };
    expect(blockVolumeOf(snapshot({ blockVolumeRao: "42", blockFlow }))).toEqual({
      ph: "0xcd11",
      v: "42",
      f: { b: "40", s: "2", bn: "3", sn: "1" },
    });
  });
});

describe("order-flow counters in the pool series fold", () => {
  /** A pool point whose block bought `buy` rao in `buys` stakes and sold `sell` rao in `sells` unstakes. */
  const flowPoint = (
    block: number,
    buy: bigint,
    sell: bigint,
    buys: number,
    sells: number,
    fork = "a",
    parentFork = fork,
  ) => {
    const point = pool(block, buy + sell, fork, parentFork);
    return {
      ...point,
      u: { ...point.u!, f: { b: buy.toString(), s: sell.toString(), bn: String(buys), sn: String(sells) } },
    };
  };
  const chain = [
    flowPoint(0, 0n, 0n, 0, 0),
    flowPoint(1, 5n, 2n, 1, 1),
    flowPoint(2, BIG, 0n, 3, 0),
    flowPoint(3, 0n, 7n, 0, 2),
  ];
  const flows = (series: SeriesPoint[]) => series.map((point) => point.m?.flow);

  it("sums buys and sells separately through every point, exactly beyond 2^53, and the buckets keep them before and at close", () => {
    const series = run([], chain.map(add));
    expect(flows(series)).toEqual([
      { b: "0", s: "0", bn: "0", sn: "0" },
      { b: "5", s: "2", bn: "1", sn: "1" },
      { b: (5n + BIG).toString(), s: "2", bn: "4", sn: "1" },
      { b: (5n + BIG).toString(), s: "9", bn: "4", sn: "3" },
    ]);
    // The volume counter is the sum of both sides.
    expect(series.at(-1)?.m?.cumulative).toBe((14n + BIG).toString());
    expect(series.at(-1)?.a?.["5m"]).toMatchObject({
      f0: { b: "0", s: "0", bn: "0", sn: "0" },
      f1: { b: (5n + BIG).toString(), s: "9", bn: "4", sn: "3" },
    });
    // One block a batch gives the same counters.
    expect(chain.reduce<SeriesPoint[]>((stored, point) => run(stored, [add(point)]), [])).toEqual(series);
  });

  it("takes a removed block's buys and sells back, and counts the new branch's instead", () => {
    const series = run([], chain.map(add));
    const removed = run(series, [remove(3), remove(2)]);
    expect(removed.at(-1)?.m?.flow).toEqual({ b: "5", s: "2", bn: "1", sn: "1" });
    expect(removed.at(-1)?.a?.["5m"]?.f1).toEqual({ b: "5", s: "2", bn: "1", sn: "1" });
    const branch = run(removed, [add(flowPoint(2, 1n, 1n, 1, 1, "b", "a"))]);
    expect(branch.at(-1)?.m?.flow).toEqual({ b: "6", s: "3", bn: "2", sn: "2" });
  });

  it("goes on across a gap (never down), and a bucket opened after the gap starts from the counters before it", () => {
    const series = run([], chain.map(add));
    // 400 blocks later: another five-minute bucket.
    const after = run(series, [add(flowPoint(400, 10n, 0n, 1, 0))]);
    expect(after.at(-1)?.w).toEqual({ s: 400, v: "10" });
    expect(after.at(-1)?.a?.["5m"]).toMatchObject({
      f0: { b: (5n + BIG).toString(), s: "9", bn: "4", sn: "3" },
      f1: { b: (15n + BIG).toString(), s: "9", bn: "5", sn: "3" },
    });
  });

  it("keeps no flow counters for points whose snapshot carries no order flow", () => {
    const series = run([], [add(pool(0, 3n)), add(pool(1, 4n))]);
    expect(flows(series)).toEqual([undefined, undefined]);
    expect(series.at(-1)?.a?.["5m"]?.f1).toBeUndefined();
  });
});
