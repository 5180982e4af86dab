import { type ChainRef, Finality } from "@platform/proto/common/v1/common";
import { IntentsChainEvent } from "@platform/proto/events/v1/chain_intents";
import { describe, expect, it } from "vitest";
import {
  emptyOrderState,
  eventIdentity,
  evolveOrder,
  evolveOrderFromRecord,
  linkNotification,
  parseOrderState,
  serializeOrderState,
} from "./orderState.js";

/* The stored form of an order's standing events (`rm:{intents}:events:<orderId>`). */

const ORDER = `0x${"ab".repeat(32)}`;

function ref(chainId: string, block: number, logIndex: number): ChainRef {
  return {
    chainId,
    blockNumber: String(block),
    blockHash: `0x${block.toString(16).padStart(64, "0")}`,
    parentHash: `0x${(block - 1).toString(16).padStart(64, "0")}`,
    blockTimestamp: new Date((1_800_000_000 + block) * 1_000).toISOString(),
    txHash: `0x${"0C".repeat(32)}`,
    txIndex: 0,
    logIndex,
    finality: Finality.FINALITY_SAFE,
  };
}

const opened: IntentsChainEvent = {
  event: {
    $case: "orderOpened",
    value: {
      ref: ref("31337", 10, 0),
      orderId: ORDER,
      settler: "0x00000000000000000000000000000000000000C1",
      txFrom: "0x00000000000000000000000000000000000000A1",
      resolvedOrder: {
        user: "0x00000000000000000000000000000000000000A1",
        originChainId: "31337",
        openDeadline: 4_294_967_295,
        fillDeadline: 1_800_000_100,
        orderId: ORDER,
        maxSpent: [{ token: `0x${"0".repeat(64)}`, amount: "990", recipient: `0x${"0".repeat(64)}`, chainId: "31338" }],
        minReceived: [
          { token: `0x${"0".repeat(64)}`, amount: "1000", recipient: `0x${"0".repeat(64)}`, chainId: "31337" },
        ],
        // Long enough that lengths take more than one varint byte.
        fillInstructions: [
          {
            destinationChainId: "31338",
            destinationSettler: `0x${"0".repeat(64)}`,
            originData: `0x${"ef".repeat(400)}`,
          },
        ],
      },
    },
  },
};
const filled: IntentsChainEvent = {
  event: {
    $case: "orderFilled",
    value: {
      ref: ref("31338", 20, 1),
      orderId: ORDER,
      settler: "0x00000000000000000000000000000000000000C2",
      filler: "0x00000000000000000000000000000000000000F1",
      recipient: "0x",
      outputToken: "0x",
      outputAmount: "990",
      repaymentAddress: "0x",
    },
  },
};

describe("order state, stored form", () => {
  it("round-trips the standing events and the notified transaction", () => {
    const state = linkNotification([opened, filled].reduce(evolveOrder, emptyOrderState(ORDER)), "31337:0xfeed");
    const bytes = serializeOrderState(state);
    expect(bytes[0]).toBe(0x02);
    expect(parseOrderState(ORDER, bytes)).toEqual(state);
    const withoutNotification = [opened].reduce(evolveOrder, emptyOrderState(ORDER));
    expect(parseOrderState(ORDER, serializeOrderState(withoutNotification))).toEqual(withoutNotification);
    expect(parseOrderState(ORDER, serializeOrderState(emptyOrderState(ORDER)))).toEqual(emptyOrderState(ORDER));
  });

  it("stores an event's record bytes as they are, and the same bytes again after a parse", () => {
    const record = Buffer.from(IntentsChainEvent.encode(opened).finish());
    const state = evolveOrderFromRecord(emptyOrderState(ORDER), IntentsChainEvent.decode(record), record);
    const bytes = serializeOrderState(state);
    expect(bytes.includes(record)).toBe(true);
    expect(serializeOrderState(parseOrderState(ORDER, bytes)).equals(bytes)).toBe(true);
  });

  it("reads the JSON form of version 1", () => {
    const state = linkNotification([opened, filled].reduce(evolveOrder, emptyOrderState(ORDER)), "31337:0xfeed");
    const json = JSON.stringify({
      v: 1,
      events: [opened, filled].map((event) => ({
        id: eventIdentity((event.event!.value as { ref: ChainRef }).ref),
        event: Buffer.from(IntentsChainEvent.encode(event).finish()).toString("base64"),
      })),
      notifiedTx: "31337:0xfeed",
    });
    expect(parseOrderState(ORDER, Buffer.from(json))).toEqual(state);
  });

  it("refuses a stored form cut short", () => {
    const bytes = serializeOrderState([opened].reduce(evolveOrder, emptyOrderState(ORDER)));
    expect(() => parseOrderState(ORDER, bytes.subarray(0, bytes.length - 10))).toThrow(/cut short/);
    expect(() => parseOrderState(ORDER, Buffer.from([0x02, 0x80]))).toThrow(/not readable/);
  });
});
