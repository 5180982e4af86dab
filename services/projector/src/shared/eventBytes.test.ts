import { NetworkChainEvent, PoolSnapshot, ValidatorSetSnapshot } from "@platform/proto/events/v1/chain_network";
import { describe, expect, it } from "vitest";
import { eventBytes, eventBytesOr, skippable } from "./eventBytes.js";

const ref = {
  chainId: "945",
  blockNumber: "7",
  blockHash: `0x${"ab".repeat(32)}`,
  parentHash: `0x${"cd".repeat(32)}`,
  blockTimestamp: "2026-11-29T00:00:00.000Z",
};

describe("a record's event bytes", () => {
  it("are the event encoded on its own, sliced from the record, for a small event and a large one", () => {
    const pool = PoolSnapshot.fromPartial({ ref, netuid: 3, taoInRao: "1000", priceTao: "0.5" });
    const record = NetworkChainEvent.encode({ event: { $case: "poolSnapshot", value: pool } }).finish();
    expect(Buffer.from(eventBytes(record)!)).toEqual(Buffer.from(PoolSnapshot.encode(pool).finish()));
    // Past 127 bytes the length takes two varint bytes, past 16 KiB three.
    const validators = ValidatorSetSnapshot.fromPartial({
      ref,
      netuid: 9,
      neurons: Array.from({ length: 1_200 }, (_, uid) => ({
        uid,
        alphaStakeNalpha: String(uid * 1_000_000),
        dividends: "0.123456789",
      })),
    });
    const large = NetworkChainEvent.encode({ event: { $case: "validatorSetSnapshot", value: validators } }).finish();
    expect(large.length).toBeGreaterThan(16_384);
    expect(Buffer.from(eventBytes(large)!)).toEqual(Buffer.from(ValidatorSetSnapshot.encode(validators).finish()));
  });

  it("are not sliced from what is not exactly one length-delimited field: the event is encoded again", () => {
    const pool = PoolSnapshot.fromPartial({ ref, netuid: 3 });
    const record = NetworkChainEvent.encode({ event: { $case: "poolSnapshot", value: pool } }).finish();
    expect(eventBytes(record.subarray(0, record.length - 1))).toBeUndefined();
    expect(eventBytes(Buffer.concat([record, Buffer.from([0x08, 0x01])]))).toBeUndefined();
    expect(eventBytes(Uint8Array.of(0x08, 0x01))).toBeUndefined();
    expect(eventBytesOr({ value: null }, () => Uint8Array.of(7))).toEqual(Uint8Array.of(7));
  });

  it("lets a projection skip a record whose event-type header names another event, and decode one without it", () => {
    const reads = new Set(["PoolSnapshot"]);
    expect(skippable({ eventType: "AccountBalanceSnapshot" }, reads)).toBe(true);
    expect(skippable({ eventType: "PoolSnapshot" }, reads)).toBe(false);
    expect(skippable({ eventType: undefined }, reads)).toBe(false);
  });
});
