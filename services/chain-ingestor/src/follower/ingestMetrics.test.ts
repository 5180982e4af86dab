import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { blocksBehind, finalizedByDepth, ingestMetrics } from "./ingestMetrics.js";

const sample = (text: string, line: string): number | undefined => {
  const found = text.split("\n").find((entry) => entry.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
};

describe("blocksBehind and finalizedByDepth", () => {
  it("count the blocks from the published one, never below 0, and the finalized block by depth, never below 0", () => {
    expect(blocksBehind(40n, 4n)).toBe(36);
    expect(blocksBehind(40n, 41n)).toBe(0);
    expect(blocksBehind(undefined, 4n)).toBeUndefined();
    expect(blocksBehind(40n, undefined)).toBeUndefined();
    expect(finalizedByDepth(40n, 3)).toBe(37n);
    expect(finalizedByDepth(2n, 3)).toBe(0n);
  });
});

describe("ingestMetrics", () => {
  it("keeps each source apart and derives the blocks behind from what it was told", async () => {
    const registry = new Registry();
    const metrics = ingestMetrics(registry);
    expect(ingestMetrics(registry)).toBe(metrics);
    const native = metrics.source("945:native");
    const price = metrics.source("31337:price");
    // Resumed from a checkpoint: published, but no commit time yet.
    native.published(90n);
    native.head(100n);
    native.finalized(97n);
    price.head(10n);
    let text = await registry.metrics();
    expect(sample(text, 'ingest_blocks_behind_head{source="945:native"}')).toBe(10);
    expect(sample(text, 'ingest_blocks_behind_finalized{source="945:native"}')).toBe(7);
    expect(sample(text, 'ingest_last_publish_timestamp_seconds{source="945:native"}')).toBeUndefined();
    // Nothing published yet: how far behind is unknown, not 0.
    expect(sample(text, 'ingest_blocks_behind_head{source="31337:price"}')).toBeUndefined();
    native.published(99n, 1_800_000_000_000);
    text = await registry.metrics();
    expect(sample(text, 'ingest_published_block{source="945:native"}')).toBe(99);
    expect(sample(text, 'ingest_blocks_behind_head{source="945:native"}')).toBe(1);
    expect(sample(text, 'ingest_blocks_behind_finalized{source="945:native"}')).toBe(0);
    expect(sample(text, 'ingest_last_publish_timestamp_seconds{source="945:native"}')).toBe(1_800_000_000);
    expect(sample(text, 'ingest_chain_head_block{source="31337:price"}')).toBe(10);
  });
});
