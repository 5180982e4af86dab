import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { lagSeconds, oldestUnappliedMs, partitionLagRecords } from "./projectionLag.js";
import { projectionMetrics } from "./projectionMetrics.js";

const sample = (text: string, line: string): number | undefined => {
  const found = text.split("\n").find((entry) => entry.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
};

describe("partitionLagRecords", () => {
  it("is the high watermark minus the next offset to apply, never below 0, from the log's start when retention passed it", () => {
    expect(partitionLagRecords({ next: 10n, high: 15n })).toBe(5n);
    expect(partitionLagRecords({ next: 15n, high: 15n })).toBe(0n);
    // Past a commit marker the position can be the high watermark itself; never negative.
    expect(partitionLagRecords({ next: 16n, high: 15n })).toBe(0n);
    expect(partitionLagRecords({ next: 0n, high: 15n, low: 12n })).toBe(3n);
    expect(partitionLagRecords({ next: 4n })).toBe(0n);
  });
});

describe("oldestUnappliedMs and lagSeconds", () => {
  const base = { next: 5n, high: 8n, assignedAtMs: 1_000 };
  it("takes the batch being applied when there is one", () => {
    expect(oldestUnappliedMs({ ...base, applyingMs: 7_000, appliedMs: 6_000, caughtUpAtMs: 9_000 })).toBe(7_000);
  });
  it("otherwise the later of the last applied record and the last time seen caught up, else the assignment", () => {
    expect(oldestUnappliedMs({ ...base, appliedMs: 6_000, caughtUpAtMs: 9_000 })).toBe(9_000);
    expect(oldestUnappliedMs({ ...base, appliedMs: 6_000 })).toBe(6_000);
    expect(oldestUnappliedMs(base)).toBe(1_000);
  });
  it("is 0 seconds when every partition is caught up, else now minus the oldest over the partitions", () => {
    const caughtUp = { ...base, next: 8n, appliedMs: 2_000 };
    expect(lagSeconds([caughtUp], 60_000)).toBe(0);
    expect(lagSeconds([caughtUp, { ...base, appliedMs: 30_000 }, { ...base, appliedMs: 50_000 }], 60_000)).toBe(30);
    // A clock behind the producer's never reads as negative.
    expect(lagSeconds([{ ...base, appliedMs: 70_000 }], 60_000)).toBe(0);
  });
});

describe("projectionMetrics", () => {
  it("reports lag in records per topic and in seconds from the consumer's positions and the topics' ends, through the text output", async () => {
    const registry = new Registry();
    let now = 100_000;
    const metrics = projectionMetrics({ registry, projection: "accounts", topics: ["t.a", "t.b"], now: () => now });
    const ends: Record<string, Array<{ partition: number; high: string; low: string; offset: string }>> = {
      "t.a": [
        { partition: 0, high: "10", low: "0", offset: "10" },
        { partition: 1, high: "4", low: "0", offset: "4" },
      ],
      "t.b": [{ partition: 0, high: "0", low: "0", offset: "0" }],
    };
    const admin = { fetchTopicOffsets: async (topic: string) => ends[topic]! };

    // Nothing is reported before the topics' ends were read once.
    expect(await registry.metrics()).not.toMatch(/^projection_consumer_lag_records\{/m);
    metrics.assigned([
      { topic: "t.a", partition: 0, next: 6n },
      { topic: "t.a", partition: 1, next: undefined },
      { topic: "t.b", partition: 0, next: undefined },
    ]);
    await metrics.refresh(admin);
    let text = await registry.metrics();
    expect(sample(text, 'projection_consumer_lag_records{projection="accounts",topic="t.a"}')).toBe(4 + 4);
    expect(sample(text, 'projection_consumer_lag_records{projection="accounts",topic="t.b"}')).toBe(0);

    // A batch being applied: its first record's time is the oldest not applied.
    metrics.applying("t.a", 0, 40_000);
    now = 101_000;
    text = await registry.metrics();
    expect(sample(text, 'projection_consumer_lag_seconds{projection="accounts"}')).toBe(61);

    metrics.applied("t.a", 0, 3, 41_000, 9n);
    // A trailing commit marker stepped over.
    metrics.position("t.a", 0, 10n);
    metrics.applied("t.a", 1, 4, 42_000, 4n);
    text = await registry.metrics();
    expect(sample(text, 'projection_consumer_lag_records{projection="accounts",topic="t.a"}')).toBe(0);
    expect(sample(text, 'projection_consumer_lag_seconds{projection="accounts"}')).toBe(0);
    expect(sample(text, 'projection_records_applied_total{projection="accounts"}')).toBe(7);
    expect(sample(text, 'projection_last_commit_timestamp_seconds{projection="accounts"}')).toBe(101);

    // A record arrives on a quiet topic and waits: seconds behind count from when it was last seen caught up, not from hours ago.
    ends["t.a"]![1]!.high = "5";
    now = 110_000;
    await metrics.refresh(admin);
    now = 125_000;
    text = await registry.metrics();
    expect(sample(text, 'projection_consumer_lag_records{projection="accounts",topic="t.a"}')).toBe(1);
    expect(sample(text, 'projection_consumer_lag_seconds{projection="accounts"}')).toBe(24);

    metrics.rebuilding(true);
    expect(sample(await registry.metrics(), 'projection_rebuilding{projection="accounts"}')).toBe(1);
    await metrics.stop();
    expect(await registry.metrics()).not.toMatch(/^projection_consumer_lag_records\{/m);
  });

  it("shares one set of metrics between the projections of one registry", async () => {
    const registry = new Registry();
    const one = projectionMetrics({ registry, projection: "market", topics: ["t.c"] });
    const two = projectionMetrics({ registry, projection: "subnets", topics: ["t.c"] });
    one.applied("t.c", 0, 2, 0, 2n);
    two.applied("t.c", 0, 3, 0, 3n);
    const text = await registry.metrics();
    expect(sample(text, 'projection_records_applied_total{projection="market"}')).toBe(2);
    expect(sample(text, 'projection_records_applied_total{projection="subnets"}')).toBe(3);
    await one.stop();
    await two.stop();
  });
});
