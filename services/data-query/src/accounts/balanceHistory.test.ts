import { Interval } from "@platform/proto/common/v1/common";
import { describe, expect, it } from "vitest";
import { bucketStarts } from "../shared/buckets.js";
import { bucketReadings } from "./balanceHistory.js";

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);

describe("bucketReadings", () => {
  const points = [
    { timeMs: at("2026-08-20T10:05:00Z"), free: "100" },
    { timeMs: at("2026-08-20T10:50:00Z"), free: "150" },
    { timeMs: at("2026-08-20T13:00:00Z"), free: "90" },
  ];

  it("gives each bucket the newest reading before its end, carrying it over empty buckets", () => {
    const starts = bucketStarts(at("2026-08-20T10:00:00Z"), at("2026-08-20T14:00:00Z"), Interval.INTERVAL_ONE_HOUR);
    expect(bucketReadings(points, starts, HOUR, at("2026-08-20T14:00:00Z")).map((point) => point?.free)).toEqual([
      "150",
      "150",
      "150",
      "90",
    ]);
  });

  it("stops the last bucket at the window's end and leaves buckets before the first reading empty", () => {
    const starts = bucketStarts(at("2026-08-20T09:00:00Z"), at("2026-08-20T10:30:00Z"), Interval.INTERVAL_ONE_HOUR);
    expect(bucketReadings(points, starts, HOUR, at("2026-08-20T10:30:00Z")).map((point) => point?.free)).toEqual([
      undefined,
      "100",
    ]);
  });

  it("takes a reading exactly at a bucket's end into the next bucket (half-open buckets)", () => {
    const starts = bucketStarts(at("2026-08-20T12:00:00Z"), at("2026-08-20T14:00:00Z"), Interval.INTERVAL_ONE_HOUR);
    expect(bucketReadings(points, starts, HOUR, at("2026-08-20T14:00:00Z")).map((point) => point?.free)).toEqual([
      "150",
      "90",
    ]);
  });

  it("buckets days and ISO weeks alike", () => {
    const starts = bucketStarts(at("2026-08-17T00:00:00Z"), at("2026-08-31T00:00:00Z"), Interval.INTERVAL_ONE_WEEK);
    expect(starts.map((ms) => new Date(ms).toISOString())).toEqual([
      "2026-08-17T00:00:00.000Z",
      "2026-08-24T00:00:00.000Z",
    ]);
    expect(
      bucketReadings(points, starts, 7 * 24 * HOUR, at("2026-08-31T00:00:00Z")).map((point) => point?.free),
    ).toEqual(["90", "90"]);
  });
});
