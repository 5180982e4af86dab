import { Finality } from "@platform/proto/common/v1/common";
import { type IntentRecord, IntentStatus } from "@platform/proto/intents/v1/intents";
import { describe, expect, it } from "vitest";
import { intentStatusName, renderIntent } from "./renderIntent.js";

const ORDER = `0x${"9f".repeat(32)}`;
const TX = `0x${"5a".repeat(32)}`;
const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const USER = "0x52908400098527886E0F7030069857D2E4169EE7";

const record: IntentRecord = {
  orderId: ORDER,
  status: IntentStatus.INTENT_STATUS_FILLED,
  isFinal: false,
  userAddress: USER,
  originChainId: "31337",
  originTxHash: TX,
  destinationChainId: "31338",
  input: { token: TOKEN, amount: "100000000" },
  output: { token: TOKEN, amount: "99850000", recipient: USER },
  fillDeadline: 1_763_770_000,
  refundableAt: "2025-11-22T00:07:40.000Z",
  filler: "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
  opened: {
    chainId: "31337",
    blockNumber: "120",
    blockHash: `0x${"01".repeat(32)}`,
    parentHash: `0x${"00".repeat(32)}`,
    blockTimestamp: "2025-11-21T23:52:00.000Z",
    txHash: TX,
    txIndex: 0,
    logIndex: 0,
    finality: Finality.FINALITY_SAFE,
  },
  filled: {
    chainId: "31338",
    blockNumber: "88",
    blockHash: `0x${"02".repeat(32)}`,
    parentHash: `0x${"03".repeat(32)}`,
    blockTimestamp: "2025-11-21T23:52:09.000Z",
    txHash: `0x${"04".repeat(32)}`,
    logIndex: 2,
    finality: Finality.FINALITY_LATEST,
  },
  updatedAt: "2025-11-21T23:52:10.000Z",
  asOf: [
    {
      chainId: "31337",
      blockNumber: "130",
      blockHash: `0x${"05".repeat(32)}`,
      timestamp: "2025-11-21T23:52:10.000Z",
      finality: Finality.FINALITY_LATEST,
    },
  ],
};

describe("renderIntent", () => {
  it("renders camelCase JSON with integer chain ids and blocks, bare state names, finality names and null for unseen steps", () => {
    expect(renderIntent(record)).toEqual({
      _links: {
        self: { href: `/intents/v1/intents/${ORDER}` },
        transaction: { href: `/intents/v1/intents?originChainId=31337&txHash=${TX}` },
      },
      orderId: ORDER,
      status: "FILLED",
      isFinal: false,
      userAddress: USER,
      originChainId: 31337,
      originTxHash: TX,
      destinationChainId: 31338,
      input: { token: TOKEN, amount: "100000000" },
      output: { token: TOKEN, amount: "99850000", recipient: USER },
      fillDeadline: 1_763_770_000,
      refundableAt: "2025-11-22T00:07:40.000Z",
      filler: "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
      opened: {
        chainId: 31337,
        blockNumber: 120,
        blockHash: `0x${"01".repeat(32)}`,
        parentHash: `0x${"00".repeat(32)}`,
        blockTimestamp: "2025-11-21T23:52:00.000Z",
        txHash: TX,
        txIndex: 0,
        logIndex: 0,
        finality: "safe",
      },
      filled: {
        chainId: 31338,
        blockNumber: 88,
        blockHash: `0x${"02".repeat(32)}`,
        parentHash: `0x${"03".repeat(32)}`,
        blockTimestamp: "2025-11-21T23:52:09.000Z",
        txHash: `0x${"04".repeat(32)}`,
        txIndex: null,
        logIndex: 2,
        finality: "latest",
      },
      settled: null,
      refunded: null,
      notifiedAt: null,
      updatedAt: "2025-11-21T23:52:10.000Z",
      asOf: [
        {
          chainId: 31337,
          blockNumber: 130,
          blockHash: `0x${"05".repeat(32)}`,
          timestamp: "2025-11-21T23:52:10.000Z",
          finality: "latest",
        },
      ],
    });
  });

  it("links a notified transaction without an order id through its transaction", () => {
    const submitted = renderIntent({
      ...record,
      orderId: "",
      status: IntentStatus.INTENT_STATUS_SUBMITTED,
      destinationChainId: undefined,
      input: undefined,
      output: undefined,
      fillDeadline: undefined,
      opened: undefined,
      filled: undefined,
      notifiedAt: "2025-11-21T23:51:58.000Z",
    });
    expect(submitted).toMatchObject({
      orderId: null,
      status: "SUBMITTED",
      destinationChainId: null,
      input: null,
      output: null,
      fillDeadline: null,
      opened: null,
      notifiedAt: "2025-11-21T23:51:58.000Z",
    });
    expect(submitted._links).toEqual({
      self: { href: `/intents/v1/intents?originChainId=31337&txHash=${TX}` },
      transaction: { href: `/intents/v1/intents?originChainId=31337&txHash=${TX}` },
    });
  });

  it("names every state without its prefix", () => {
    expect(
      [
        IntentStatus.INTENT_STATUS_SUBMITTED,
        IntentStatus.INTENT_STATUS_OPEN,
        IntentStatus.INTENT_STATUS_SETTLED,
        IntentStatus.INTENT_STATUS_EXPIRED,
        IntentStatus.INTENT_STATUS_REFUNDED,
        IntentStatus.INTENT_STATUS_REVERTED,
        IntentStatus.INTENT_STATUS_DROPPED,
      ].map(intentStatusName),
    ).toEqual(["SUBMITTED", "OPEN", "SETTLED", "EXPIRED", "REFUNDED", "REVERTED", "DROPPED"]);
    expect(intentStatusName(IntentStatus.UNRECOGNIZED)).toBe("UNSPECIFIED");
  });
});
