import { Writable } from "node:stream";
import type { ConsumedRecord } from "@platform/bus";
import { createLogger } from "@platform/log";
import { Finality } from "@platform/proto/common/v1/common";
import { NetworkChainEvent } from "@platform/proto/events/v1/chain_network";
import { TOPICS } from "@platform/proto/topics";
import { ordinalOf, type SeriesPoint } from "@platform/read-models";
import { describe, expect, it } from "vitest";
import { runningCountsOf } from "../shared/runningCounts.js";
import { foldSeries, type NewPoint, type SeriesOp } from "../shared/series.js";
import { decodeMarketBatch } from "./decode.js";

const T0 = Date.UTC(2026, 0, 1);
const hashOf = (block: number, fork = "a") => `0x${fork}${block}`;

/** A stats point of `block` on `fork`, building on its parent on `parentFork`, counting `x` extrinsics and `r` transfers. */
const stats = (block: number, x: number, r: number, fork = "a", parentFork = fork): NewPoint => ({
  o: ordinalOf(block),
  b: block,
  h: hashOf(block, fork),
  t: T0 + block * 12_000,
  p: `stats-${block}-${fork}`,
  k: { ph: hashOf(block - 1, parentFork), x, r },
});
const add = (point: NewPoint): SeriesOp => ({ kind: "add", point });
const remove = (block: number, fork = "a"): SeriesOp => ({ kind: "remove", block, hash: hashOf(block, fork) });

/** Folds ops onto a series held in memory, as the store does with the tail it loads (seriesStore.ts). */
function run(stored: SeriesPoint[], ops: SeriesOp[], keep = Number.POSITIVE_INFINITY): SeriesPoint[] {
  const lowest = Math.min(...ops.map((op) => (op.kind === "add" ? op.point.o : ordinalOf(op.block))));
  const below = stored.filter((point) => point.o < lowest);
  const folded = foldSeries({ base: below.at(-1), tail: stored.filter((point) => point.o >= lowest) }, ops, []);
  return [...below, ...folded.points].slice(-keep);
}
const newest = (series: SeriesPoint[]) => series.at(-1)?.n;

describe("runningCountsOf", () => {
  const parent = { b: 9, h: hashOf(9), n: { s: 0, x: 40, r: 7 } };
  it("goes on from the block's parent", () => {
    expect(runningCountsOf({ b: 10, k: { ph: hashOf(9), x: 3, r: 1 } }, parent)).toEqual({ s: 0, x: 43, r: 8 });
  });
  it("starts a new run at the block when the point before is not its parent, or counted nothing", () => {
    const own = { b: 10, k: { ph: hashOf(9), x: 3, r: 1 } };
    expect(runningCountsOf(own, undefined)).toEqual({ s: 10, x: 3, r: 1 });
    expect(runningCountsOf(own, { ...parent, h: hashOf(9, "b") })).toEqual({ s: 10, x: 3, r: 1 });
    expect(runningCountsOf(own, { ...parent, b: 8 })).toEqual({ s: 10, x: 3, r: 1 });
    expect(runningCountsOf(own, { b: 9, h: hashOf(9) })).toEqual({ s: 10, x: 3, r: 1 });
  });
  it("gives nothing for a point that counts nothing", () => {
    expect(runningCountsOf({ b: 10 }, parent)).toBeUndefined();
  });
});

describe("running counts in the series fold", () => {
  const chain = [stats(0, 0, 0), stats(1, 1, 0), stats(2, 3, 1), stats(3, 2, 2)];

  it("sums every block from the first one folded, each point carrying the counts through its block", () => {
    const series = run([], chain.map(add));
    expect(series.map((point) => point.n)).toEqual([
      { s: 0, x: 0, r: 0 },
      { s: 0, x: 1, r: 0 },
      { s: 0, x: 4, r: 1 },
      { s: 0, x: 6, r: 3 },
    ]);
    // One batch or one block a batch: the same counts.
    const oneByOne = chain.reduce<SeriesPoint[]>((stored, point) => run(stored, [add(point)]), []);
    expect(oneByOne).toEqual(series);
  });

  it("counts a replayed block once", () => {
    const series = run([], chain.map(add));
    expect(run(series, [add(chain[2]!), add(chain[3]!)])).toEqual(series);
    const folded = foldSeries({ base: series[1], tail: series.slice(2) }, [add(chain[2]!), add(chain[3]!)], []);
    expect(folded.changedFrom).toBeUndefined();
  });

  it("takes an orphaned block's counts back and counts the new branch's instead, in one batch or two", () => {
    const series = run([], chain.map(add));
    const branch = [stats(2, 5, 4, "b", "a"), stats(3, 1, 0, "b"), stats(4, 1, 1, "b")];
    const together = run(series, [remove(3), remove(2), ...branch.map(add)]);
    expect(together.map((point) => point.h)).toEqual([
      hashOf(0),
      hashOf(1),
      hashOf(2, "b"),
      hashOf(3, "b"),
      hashOf(4, "b"),
    ]);
    expect(newest(together)).toEqual({ s: 0, x: 1 + 5 + 1 + 1, r: 4 + 0 + 1 });

    // The follower commits the removal first; until the new branch comes, block 1's counts stand.
    const removed = run(series, [remove(3), remove(2)]);
    expect(newest(removed)).toEqual({ s: 0, x: 1, r: 0 });
    expect(run(removed, branch.map(add))).toEqual(together);
    // A block re-read on the other branch without a removal replaces its point and its counts; the
    // old branch's block above it no longer builds on it, so it sums nothing below itself.
    const replaced = run(series, [add(branch[0]!)]);
    expect(replaced.map((point) => point.n)).toEqual([
      { s: 0, x: 0, r: 0 },
      { s: 0, x: 1, r: 0 },
      { s: 0, x: 6, r: 4 },
      { s: 3, x: 2, r: 2 },
    ]);
  });

  it("a removal of another branch's block changes nothing", () => {
    const series = run([], chain.map(add));
    expect(run(series, [remove(3, "b")])).toEqual(series);
  });

  it("says which block the counts start from when the first block folded is not genesis", () => {
    const later = run([], [add(stats(500, 4, 2)), add(stats(501, 1, 1))]);
    expect(newest(later)).toEqual({ s: 500, x: 5, r: 3 });
  });

  it("starts a new run, never a silent partial sum, after a gap or a point that counted nothing", () => {
    const series = run([], chain.map(add));
    expect(newest(run(series, [add(stats(7, 2, 1))]))).toEqual({ s: 7, x: 2, r: 1 });
    const uncounted = run([], [add({ ...stats(1, 0, 0), k: undefined }), add(stats(2, 3, 1))]);
    expect(uncounted.map((point) => point.n)).toEqual([undefined, { s: 2, x: 3, r: 1 }]);
  });

  it("goes on from the point below a batch when older points were trimmed", () => {
    const trimmed = run([], chain.map(add), 1);
    expect(trimmed).toHaveLength(1);
    expect(newest(run(trimmed, [add(stats(4, 10, 5))]))).toEqual({ s: 0, x: 16, r: 8 });
  });
});

describe("a stats record's block counts", () => {
  const log = createLogger({
    service: "projector-test",
    level: "silent",
    destination: new Writable({ write: (_c, _e, callback) => callback() }),
  });
  const record = (stats: Record<string, unknown>): ConsumedRecord => ({
    topic: TOPICS.chainNetwork.name,
    partition: 0,
    offset: "0",
    timestamp: "0",
    key: "network",
    value: Buffer.from(
      NetworkChainEvent.encode({
        event: {
          $case: "networkStatsSnapshot",
          value: {
            ref: {
              chainId: "945",
              blockNumber: "12",
              blockHash: "0xAB12",
              parentHash: "0xCD11",
              blockTimestamp: new Date(T0).toISOString(),
              finality: Finality.FINALITY_LATEST,
            },
            totalIssuanceRao: "1",
            totalStakeRao: "0",
            stakedRootRao: "0",
            stakedAlphaPoolsRao: "0",
            blockEmissionRao: "0",
            taoWeight: "0",
            rootNetuid: 0,
            subnetsCount: 1,
            subnetLimit: 8,
            ...stats,
          },
        },
      }).finish(),
    ),
    eventId: undefined,
    eventType: undefined,
    schema: undefined,
    traceparent: undefined,
    tracestate: undefined,
    headers: {},
  });

  it("go on the point with the parent's hash; a snapshot without them counts nothing", () => {
    const [counted, uncounted] = decodeMarketBatch(
      [record({ blockExtrinsicsCount: 3, blockTransfersCount: 0 }), record({})],
      log,
    );
    expect(counted).toMatchObject({ kind: "stats", point: { b: 12, h: "0xab12", k: { ph: "0xcd11", x: 3, r: 0 } } });
    expect(uncounted).toMatchObject({ kind: "stats" });
    expect((uncounted as { point: NewPoint }).point.k).toBeUndefined();
  });
});
