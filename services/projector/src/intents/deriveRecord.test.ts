import { IntentRecord, IntentStatus } from "@platform/proto/intents/v1/intents";
import { describe, expect, it } from "vitest";
import { type StoredRecord, sameAsStored } from "./deriveRecord.js";

const base: IntentRecord = IntentRecord.fromPartial({
  orderId: `0x${"ab".repeat(32)}`,
  status: IntentStatus.INTENT_STATUS_OPEN,
  userAddress: "0x0000000000000000000000000000000000001234",
  fillDeadline: 2_000_000_000,
});

/** As the projection reads it back: the bytes it wrote, stamped, and their decoding. */
function stored(record: IntentRecord, updatedAt: string): StoredRecord {
  const bytes = Buffer.from(IntentRecord.encode({ ...record, updatedAt }).finish());
  return { record: IntentRecord.decode(bytes), bytes };
}

describe("sameAsStored", () => {
  it("is true for an equal record stamped at another time, false for any other difference", () => {
    const before = stored(base, "2030-01-01T00:00:00.000Z");
    expect(sameAsStored(before, { ...base, updatedAt: "2031-01-01T00:00:00.000Z" })).toBe(true);
    expect(sameAsStored(before, { ...base, updatedAt: "" })).toBe(true);
    expect(sameAsStored(before, { ...base, status: IntentStatus.INTENT_STATUS_EXPIRED })).toBe(false);
    expect(sameAsStored(before, { ...base, fillDeadline: 2_000_000_001 })).toBe(false);
  });

  it("compares absence: nothing stored and nothing derived are the same, one without the other is not", () => {
    expect(sameAsStored(undefined, undefined)).toBe(true);
    expect(sameAsStored(undefined, base)).toBe(false);
    expect(sameAsStored(stored(base, "2030-01-01T00:00:00.000Z"), undefined)).toBe(false);
  });
});
