import { type ChainRef, Finality } from "@platform/proto/common/v1/common";
import { type IntentRecord, IntentStatus } from "@platform/proto/intents/v1/intents";
import { describe, expect, it } from "vitest";
import { firstSightingMs, type IndexEntry, indexChanges, recordIndexes } from "./recordIndexes.js";

const ORDER = `0x${"ab".repeat(32)}`;
const USER = "0x00000000000000000000000000000000000000A1";

function ref(chainId: string, block: number, finality: Finality, at = "2027-01-01T00:00:10.000Z"): ChainRef {
  return {
    chainId,
    blockNumber: String(block),
    blockHash: "0x",
    parentHash: "0x",
    blockTimestamp: at,
    txHash: "0x",
    txIndex: 0,
    logIndex: 0,
    finality,
  };
}

function record(overrides: Partial<IntentRecord>): IntentRecord {
  return {
    orderId: ORDER,
    status: IntentStatus.INTENT_STATUS_OPEN,
    isFinal: false,
    userAddress: USER,
    originChainId: "31337",
    originTxHash: "0x",
    destinationChainId: "31338",
    fillDeadline: 1_800_000_000,
    updatedAt: "",
    asOf: [],
    ...overrides,
  } as IntentRecord;
}

describe("record indexes", () => {
  it("lists each chain of the steps below safe / finalized once, at its lowest block, in order of first appearance", () => {
    const entries = recordIndexes(
      ORDER,
      record({
        status: IntentStatus.INTENT_STATUS_FILLED,
        opened: ref("31337", 12, Finality.FINALITY_SAFE),
        filled: ref("31338", 40, Finality.FINALITY_LATEST),
        settled: ref("31337", 9, Finality.FINALITY_LATEST),
      }),
    );
    expect(entries.map(({ key, score }) => [key, score])).toEqual([
      ["rm:{intents}:user:0x00000000000000000000000000000000000000A1:pending", Date.parse("2027-01-01T00:00:10.000Z")],
      ["rm:{intents}:unsafe:31338", 40],
      ["rm:{intents}:unsafe:31337", 9],
      ["rm:{intents}:unfinalized:31337", 9],
      ["rm:{intents}:unfinalized:31338", 40],
    ]);
  });

  it("first sighting: the earlier of the notification and the Open's block time; 0 when neither is a time", () => {
    const opened = ref("31337", 1, Finality.FINALITY_FINALIZED, "2027-01-01T00:00:10.000Z");
    expect(firstSightingMs(record({ opened, notifiedAt: "2027-01-01T00:00:05.000Z" }))).toBe(
      Date.parse("2027-01-01T00:00:05.000Z"),
    );
    expect(firstSightingMs(record({ opened, notifiedAt: "2027-01-01T00:00:15.000Z" }))).toBe(
      Date.parse("2027-01-01T00:00:10.000Z"),
    );
    expect(firstSightingMs(record({ opened, notifiedAt: "" }))).toBe(Date.parse("2027-01-01T00:00:10.000Z"));
    expect(firstSightingMs(record({ notifiedAt: "not a time" }))).toBe(0);
  });

  it("changes: everything added for a new record, everything removed for a gone one, else the difference", () => {
    const a: IndexEntry = { key: "k1", member: "m", score: 1 };
    const b: IndexEntry = { key: "k2", member: "m", score: 2 };
    expect(indexChanges([], [a, b])).toEqual({ remove: [], add: [a, b] });
    expect(indexChanges([a, b], [])).toEqual({ remove: [a, b], add: [] });
    expect(indexChanges([a, b], [{ ...a, score: 5 }])).toEqual({ remove: [b], add: [{ ...a, score: 5 }] });
    expect(indexChanges([a], [a])).toEqual({ remove: [], add: [] });
  });
});
