import { ordinalOf } from "@platform/read-models";
import { describe, expect, it } from "vitest";
import type { NewPoint, SeriesOp } from "./series.js";
import { type LoadedSeries, queueSeriesWrites } from "./seriesStore.js";

const point = (block: number): NewPoint => ({
  o: ordinalOf(block),
  b: block,
  h: `0x${block}`,
  t: 1_767_225_600_000 + block * 12_000,
  p: `set-${block}`,
});

/** The commands queueSeriesWrites puts on a MULTI, recorded in order. */
function queued(series: LoadedSeries): string[][] {
  const commands: string[][] = [];
  const recorder = new Proxy(
    {},
    {
      get:
        (_target, name: string) =>
        (...args: unknown[]) => {
          commands.push([name, ...args.map(String)]);
          return recorder;
        },
    },
  );
  queueSeriesWrites(recorder as never, [series]);
  return commands;
}

describe("queueSeriesWrites", () => {
  const layout = { points: "rm:{data}:subnets:holders:3:points", buckets: {}, keepPoints: 4 };

  it("sends only the points that stand after the trim: a backlog's 50 sets into a series that keeps 4", () => {
    const ops: SeriesOp[] = Array.from({ length: 50 }, (_, index) => ({ kind: "add", point: point(101 + index) }));
    const stored = point(100);
    const commands = queued({ layout, ops, lowest: ordinalOf(101), loaded: { base: stored, tail: [] } });
    const added = commands.filter(([name]) => name === "zadd").map(([, , , member]) => JSON.parse(member!).b);
    expect(added).toEqual([147, 148, 149, 150]);
    // The same trim as before: whatever stood below the batch leaves once 4 newer stand.
    expect(commands.at(-1)).toEqual(["zremrangebyrank", layout.points, "0", "-5"]);
  });

  it("sends every point of a batch smaller than the window", () => {
    const ops: SeriesOp[] = [
      { kind: "add", point: point(201) },
      { kind: "add", point: point(202) },
    ];
    const commands = queued({ layout, ops, lowest: ordinalOf(201), loaded: { base: point(200), tail: [] } });
    expect(commands.filter(([name]) => name === "zadd").map(([, , , member]) => JSON.parse(member!).b)).toEqual([
      201, 202,
    ]);
  });
});
