import { Finality } from "@platform/proto/common/v1/common";
import { CheckStatus, FeeType, type QuoteResponse } from "@platform/proto/intents/v1/intents";
import { describe, expect, it } from "vitest";
import { renderPreflight } from "./renderPreflight.js";
import { renderQuote } from "./renderQuote.js";

const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const SETTLER = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";

const quote: QuoteResponse = {
  quoteId: "q_AAAAAAAAAAAAAAAAAAAAAA",
  originChainId: "31337",
  destinationChainId: "31338",
  inputToken: TOKEN,
  outputToken: TOKEN,
  inputAmount: "100000000",
  outputAmount: "99850000",
  minOutputAmount: "99850000",
  fees: {
    total: { type: FeeType.FEE_TYPE_UNSPECIFIED, amount: "150000", token: TOKEN, bps: 15 },
    breakdown: [
      { type: FeeType.FEE_TYPE_FILLER, amount: "50000", token: TOKEN, bps: 5 },
      { type: FeeType.FEE_TYPE_GAS, amount: "100000", token: TOKEN, bps: 10 },
    ],
  },
  limits: { minInputAmount: "1000000", maxInputAmount: "100000000000" },
  fillDeadline: 1_763_770_900,
  validUntil: "2025-11-22T00:01:00.000Z",
  estimatedFillTimeSeconds: 10,
  settlement: {
    fullSettler: SETTLER,
    orderDataType: "0x710f",
    orderData: "",
    order: {
      originChainId: "31337",
      destinationChainId: "31338",
      inputToken: TOKEN,
      inputAmount: "100000000",
      outputToken: TOKEN,
      outputAmount: "99850000",
      recipient: "",
      nonce: "42",
      fillDeadline: 1_763_770_900,
    },
  },
};

describe("renderQuote", () => {
  it("renders integers, decimal strings, named fee types and null for order data it could not encode", () => {
    const rendered = renderQuote(quote);
    expect(rendered).toMatchObject({
      originChainId: 31337,
      destinationChainId: 31338,
      fees: {
        total: { amount: "150000", token: TOKEN, bps: 15 },
        breakdown: [
          { type: "filler", amount: "50000", token: TOKEN, bps: 5 },
          { type: "gas", amount: "100000", token: TOKEN, bps: 10 },
        ],
      },
      fillDeadline: 1_763_770_900,
      settlement: {
        fullSettler: SETTLER,
        approvalSpender: SETTLER,
        orderData: null,
        order: { originChainId: 31337, recipient: null, nonce: "42" },
      },
    });
    expect(rendered._links.preflight.href).toBe("/intents/v1/preflight");
  });
});

describe("renderPreflight", () => {
  it("renders statuses in lower case, null for missing values, and links the order id", () => {
    const orderId = `0x${"ab".repeat(32)}`;
    expect(
      renderPreflight({
        ok: false,
        orderId,
        checks: [
          { name: "BALANCE", status: CheckStatus.CHECK_STATUS_FAIL, expected: ">= 5", actual: "0", message: "short" },
          { name: "QUOTE_NOT_EXPIRED", status: CheckStatus.CHECK_STATUS_SKIPPED, message: "no quoteId was given" },
        ],
        asOf: [
          {
            chainId: "31337",
            blockNumber: "7",
            blockHash: "0x01",
            timestamp: "2025-11-22T00:00:00.000Z",
            finality: Finality.FINALITY_LATEST,
          },
        ],
      }),
    ).toEqual({
      _links: {
        intent: { href: `/intents/v1/intents/${orderId}`, title: "The order's mirrored status once it is opened" },
      },
      ok: false,
      orderId,
      checks: [
        { name: "BALANCE", status: "fail", expected: ">= 5", actual: "0", detail: "short" },
        { name: "QUOTE_NOT_EXPIRED", status: "skipped", expected: null, actual: null, detail: "no quoteId was given" },
      ],
      asOf: [
        {
          chainId: 31337,
          blockNumber: 7,
          blockHash: "0x01",
          timestamp: "2025-11-22T00:00:00.000Z",
          finality: "latest",
        },
      ],
    });
  });
});
