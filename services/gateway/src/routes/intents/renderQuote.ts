import { type Fee, FeeType, type OrderParams, type QuoteResponse } from "@platform/proto/intents/v1/intents";
import type { z } from "zod";
import type { OrderParamsSchema, QuoteSchema } from "./intentAnswers.js";

/** The public JSON of a quote: camelCase, amounts as decimal strings, chain ids as integers. */

const FEE_TYPES: Partial<Record<FeeType, "filler" | "gas" | "protocol">> = {
  [FeeType.FEE_TYPE_FILLER]: "filler",
  [FeeType.FEE_TYPE_GAS]: "gas",
  [FeeType.FEE_TYPE_PROTOCOL]: "protocol",
};

const renderFee = (fee: Fee | undefined) =>
  fee === undefined ? null : { amount: fee.amount, token: fee.token, bps: fee.bps };

/** The decoded order: what `orderData` encodes, plus the origin chain and fill deadline of the on-chain order. */
export function renderOrderParams(order: OrderParams): z.output<typeof OrderParamsSchema> {
  return {
    originChainId: Number(order.originChainId),
    destinationChainId: Number(order.destinationChainId),
    inputToken: order.inputToken,
    inputAmount: order.inputAmount,
    outputToken: order.outputToken,
    outputAmount: order.outputAmount,
    recipient: order.recipient || null,
    nonce: order.nonce,
    fillDeadline: order.fillDeadline,
  };
}

export function renderQuote(quote: QuoteResponse): z.output<typeof QuoteSchema> {
  const settlement = quote.settlement;
  return {
    _links: {
      preflight: {
        href: "/intents/v1/preflight",
        title: "POST {userAddress, quoteId} to check this quote's order before signing",
      },
    },
    quoteId: quote.quoteId,
    originChainId: Number(quote.originChainId),
    destinationChainId: Number(quote.destinationChainId),
    inputToken: quote.inputToken,
    outputToken: quote.outputToken,
    inputAmount: quote.inputAmount,
    outputAmount: quote.outputAmount,
    minOutputAmount: quote.minOutputAmount,
    fees: {
      total: renderFee(quote.fees?.total),
      breakdown: (quote.fees?.breakdown ?? []).map((fee) => ({
        type: FEE_TYPES[fee.type] ?? "other",
        ...renderFee(fee)!,
      })),
    },
    limits: {
      minInputAmount: quote.limits?.minInputAmount ?? null,
      maxInputAmount: quote.limits?.maxInputAmount ?? null,
    },
    fillDeadline: quote.fillDeadline,
    validUntil: quote.validUntil,
    estimatedFillTimeSeconds: quote.estimatedFillTimeSeconds,
    settlement:
      settlement === undefined
        ? null
        : {
            fullSettler: settlement.fullSettler,
            approvalSpender: settlement.fullSettler,
            orderDataType: settlement.orderDataType,
            orderData: settlement.orderData || null,
            order: settlement.order === undefined ? null : renderOrderParams(settlement.order),
          },
  };
}
