import { ChainRef } from "@platform/proto/common/v1/common";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { advanceToRef, asOfAgeSeconds, readModelMetrics, throttled } from "./readModelMetrics.js";

const sample = (text: string, line: string): number | undefined => {
  const found = text.split("\n").find((entry) => entry.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
};

const ref = (blockNumber: string, blockTimestamp: string): ChainRef =>
  ChainRef.fromPartial({ chainId: "945", blockNumber, blockHash: `0x${blockNumber}`, blockTimestamp });

afterEach(() => {
  vi.useRealTimers();
});

describe("asOfAgeSeconds", () => {
  it("is now minus the block's time, negative when the chain's clock runs ahead", () => {
    expect(asOfAgeSeconds(1_000, 1_030_500)).toBe(30.5);
    expect(asOfAgeSeconds(1_100, 1_030_000)).toBe(-70);
  });
});

describe("readModelMetrics", () => {
  it("shows each read model's block, its time and its age when scraped, through the text output", async () => {
    const registry = new Registry();
    let now = 2_000_000;
    const metrics = readModelMetrics(registry, () => now);
    // One set per registry, whichever projection asks.
    expect(readModelMetrics(registry)).toBe(metrics);

    metrics.stand("accounts", 120, 1_990);
    metrics.stand("intents:31337", 55, 1_995);
    let text = await registry.metrics();
    expect(sample(text, 'read_model_as_of_block{read_model="accounts"}')).toBe(120);
    expect(sample(text, 'read_model_as_of_timestamp_seconds{read_model="accounts"}')).toBe(1_990);
    expect(sample(text, 'read_model_as_of_age_seconds{read_model="accounts"}')).toBe(10);
    expect(sample(text, 'read_model_as_of_age_seconds{read_model="intents:31337"}')).toBe(5);

    // The age grows between commits: it is computed at scrape time.
    now = 2_060_000;
    text = await registry.metrics();
    expect(sample(text, 'read_model_as_of_age_seconds{read_model="accounts"}')).toBe(70);

    // advance keeps the newest of partitions committed out of step; stand follows a reorganisation back.
    advanceToRef(metrics, "market", ref("30", "1970-01-01T00:33:20Z"));
    advanceToRef(metrics, "market", ref("29", "1970-01-01T00:33:08Z"));
    metrics.stand("accounts", 118, 1_980);
    text = await registry.metrics();
    expect(sample(text, 'read_model_as_of_block{read_model="market"}')).toBe(30);
    expect(sample(text, 'read_model_as_of_timestamp_seconds{read_model="market"}')).toBe(2_000);
    expect(sample(text, 'read_model_as_of_block{read_model="accounts"}')).toBe(118);

    // A lost read model (a rebuild) reports nothing until it stands again; `intents` covers every chain.
    metrics.forget("intents");
    text = await registry.metrics();
    expect(text).not.toMatch(/read_model="intents:31337"/);
    expect(sample(text, 'read_model_as_of_block{read_model="accounts"}')).toBe(118);
  });
});

describe("throttled", () => {
  it("reads at most once per interval and always honours the last call of a burst", async () => {
    vi.useFakeTimers();
    let reads = 0;
    const read = throttled(async () => {
      reads += 1;
    }, 1_000);
    read();
    read();
    read();
    expect(reads).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(reads).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(reads).toBe(2);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(reads).toBe(2);
  });
});
