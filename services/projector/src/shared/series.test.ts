import { ordinalOf, type SeriesPoint } from "@platform/read-models";
import { describe, expect, it } from "vitest";
import { bucketsFrom, foldSeries, type NewPoint, type SeriesOp } from "./series.js";

const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);
const point = (block: number, price: string, volume: string, seconds: number, hash = `0x${block}`): NewPoint => ({
  o: ordinalOf(block),
  b: block,
  h: hash,
  t: T0 + seconds * 1_000,
  p: `snapshot-${block}-${hash}`,
  m: { price, cumulative: volume, close: { tao_in_rao: String(block) } },
});
const add = (value: NewPoint): SeriesOp => ({ kind: "add", point: value });

/** Folds ops onto a series held in memory, as the store does with the loaded tail. */
function run(stored: SeriesPoint[], ops: SeriesOp[]): SeriesPoint[] {
  const lowest = Math.min(...ops.map((op) => (op.kind === "add" ? op.point.o : ordinalOf(op.block))));
  const base = stored.filter((value) => value.o < lowest).at(-1);
  const tail = stored.filter((value) => value.o >= lowest);
  const folded = foldSeries({ base, tail }, ops, ["5m", "1h"]);
  return [...stored.filter((value) => value.o < lowest), ...folded.points];
}

describe("series fold", () => {
  it("keeps the newest snapshot last and builds OHLC candles per bucket", () => {
    const series = run(
      [],
      [
        add(point(1, "1.5", "100", 10)),
        add(point(2, "2.25", "130", 100)),
        add(point(3, "0.75", "150", 200)),
        add(point(4, "1", "160", 310)),
      ],
    );
    expect(series.map((value) => value.b)).toEqual([1, 2, 3, 4]);
    // 0..300 s is one 5-minute bucket; block 4 opens the next, and its volume starts where block 3 ended.
    expect(series[2]!.a!["5m"]).toMatchObject({
      s: T0 / 1_000,
      o: "1.5",
      h: "2.25",
      l: "0.75",
      c: "0.75",
      v0: "100",
      v1: "150",
      b: 3,
    });
    expect(series[3]!.a!["5m"]).toMatchObject({
      s: T0 / 1_000 + 300,
      o: "1",
      h: "1",
      l: "1",
      c: "1",
      v0: "150",
      v1: "160",
    });
    expect(series[3]!.a!["1h"]).toMatchObject({ o: "1.5", h: "2.25", l: "0.75", c: "1", v0: "100", v1: "160" });
  });

  it("compares prices as exact decimals, not floats", () => {
    const series = run([], [add(point(1, "0.100000000000000001", "0", 0)), add(point(2, "0.1", "0", 1))]);
    expect(series[1]!.a!["5m"]).toMatchObject({ h: "0.100000000000000001", l: "0.1" });
  });

  it("a removal restores the previous snapshot and the candle as it was before", () => {
    const before = run([], [add(point(1, "1", "10", 0)), add(point(2, "3", "20", 30))]);
    const withFork = run(before, [add(point(3, "9", "99", 60, "0xfork"))]);
    const after = run(withFork, [{ kind: "remove", block: 3, hash: "0xfork" }]);
    expect(after).toEqual(before);
    expect(after.at(-1)!.a!["5m"]).toMatchObject({ h: "3", c: "3", v1: "20" });
  });

  it("a removal of another fork's hash changes nothing; a re-read block replaces its point", () => {
    const series = run([], [add(point(1, "1", "10", 0)), add(point(2, "2", "20", 12))]);
    expect(run(series, [{ kind: "remove", block: 2, hash: "0xother" }])).toEqual(series);
    const replaced = run(series, [add(point(2, "5", "25", 12, "0xnew"))]);
    expect(replaced.map((value) => value.h)).toEqual(["0x1", "0xnew"]);
    expect(replaced[1]!.a!["5m"]).toMatchObject({ h: "5", l: "1", c: "5" });
  });

  it("replaying the same points is a no-op", () => {
    const ops = [add(point(1, "1", "10", 0)), add(point(2, "2", "20", 12))];
    const once = run([], ops);
    const lowest = ops[0]!.kind === "add" ? ops[0]!.point.o : 0;
    const folded = foldSeries({ base: undefined, tail: once.filter((value) => value.o >= lowest) }, ops, ["5m"]);
    expect(folded.changedFrom).toBeUndefined();
  });

  it("bucketsFrom gives each touched bucket its last standing point's aggregate and drops emptied ones", () => {
    const series = run([], [add(point(1, "1", "0", 0)), add(point(2, "2", "0", 290)), add(point(3, "4", "0", 310))]);
    const removed = run(series, [{ kind: "remove", block: 3, hash: "0x3" }]);
    const { from, aggregates } = bucketsFrom(removed[0], removed.slice(1), "5m", T0 + 310_000);
    expect(from).toBe(T0 / 1_000 + 300);
    expect(aggregates).toEqual([]);
    const again = bucketsFrom(undefined, removed, "5m", T0);
    expect(again.aggregates.map((aggregate) => [aggregate.s, aggregate.c])).toEqual([[T0 / 1_000, "2"]]);
  });
});
