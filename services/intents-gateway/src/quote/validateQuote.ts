import { invalidArgument } from "@platform/errors";
import { type QuoteRequest, TradeType } from "@platform/proto/intents/v1/intents";
import type { Address } from "viem";
import { parseAddress, parseChainId, parseUint256 } from "../validation/fields.js";

export interface ValidQuoteRequest {
  originChainId: number;
  destinationChainId: number;
  inputToken: Address;
  outputToken: Address;
  amount: bigint;
  tradeType: "EXACT_INPUT" | "EXACT_OUTPUT";
  userAddress?: Address;
  recipient?: Address;
}

/** Checks a quote request's fields; UNSPECIFIED trade type means EXACT_INPUT, the common case. */
export function validateQuote(request: QuoteRequest): ValidQuoteRequest {
  const tradeType = tradeTypeOf(request.tradeType);
  return {
    originChainId: parseChainId(request.originChainId, "originChainId"),
    destinationChainId: parseChainId(request.destinationChainId, "destinationChainId"),
    inputToken: parseAddress(request.inputToken, "inputToken"),
    outputToken: parseAddress(request.outputToken, "outputToken"),
    amount: parseUint256(request.amount, "amount", { positive: true }),
    tradeType,
    ...(request.userAddress === undefined ? {} : { userAddress: parseAddress(request.userAddress, "userAddress") }),
    ...(request.recipient === undefined ? {} : { recipient: parseAddress(request.recipient, "recipient") }),
  };
}

function tradeTypeOf(value: TradeType): ValidQuoteRequest["tradeType"] {
  if (value === TradeType.TRADE_TYPE_UNSPECIFIED || value === TradeType.TRADE_TYPE_EXACT_INPUT) return "EXACT_INPUT";
  if (value === TradeType.TRADE_TYPE_EXACT_OUTPUT) return "EXACT_OUTPUT";
  throw invalidArgument("INVALID_PARAMETER", "tradeType must be EXACT_INPUT or EXACT_OUTPUT", {
    parameter: "tradeType",
  });
}
