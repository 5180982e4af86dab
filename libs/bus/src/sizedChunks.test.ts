import { describe, expect, it } from "vitest";
import type { OutgoingRecord } from "./envelope.js";
import { recordBytes, sizedChunks } from "./sizedChunks.js";

const record = (index: number, valueBytes: number): OutgoingRecord => ({
  topic: "chain.network.v1",
  key: `0x${"ab".repeat(32)}`,
  value: new Uint8Array(valueBytes),
  eventType: "AccountActivity",
  schema: "platform.events.v1.NetworkChainEvent",
  eventId: `31964:0x${"cd".repeat(32)}:AccountActivity:${index}`,
});

describe("sizedChunks", () => {
  it("counts keys and headers, not only values: 2,500 small records of one key never make a batch over 1 MiB", () => {
    // The case that failed in production shape: a block of 1,000 transfers to one account, whose
    // values alone stayed under 1 MB while the records with their keys and headers did not.
    const records = Array.from({ length: 2_500 }, (_, index) => record(index, 250));
    const chunks = sizedChunks(records);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks)
      expect(chunk.reduce((sum, one) => sum + recordBytes(one), 0)).toBeLessThanOrEqual(512 * 1024);
    expect(chunks.flat()).toEqual(records);
  });

  it("keeps the order, and puts a record larger than the limit in a run of its own", () => {
    const records = [record(0, 10), record(1, 5_000), record(2, 10)];
    expect(sizedChunks(records, 1_000).map((chunk) => chunk.map((one) => one.eventId))).toEqual([
      [records[0]!.eventId],
      [records[1]!.eventId],
      [records[2]!.eventId],
    ]);
    expect(sizedChunks([])).toEqual([]);
  });
});
