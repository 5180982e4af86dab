import { callUnary } from "@platform/grpc";
import { defineRoute } from "@platform/http";
import { type IntentsServiceClient, TradeType } from "@platform/proto/intents/v1/intents";
import { z } from "zod";
import { callMetadata } from "../../backends.js";
import { evmAddress } from "../schemas.js";
import { NO_STORE, QuoteSchema } from "./intentAnswers.js";
import { EXAMPLE_USER, exampleTokens } from "./intentExamples.js";
import { baseUnits, chainIdField } from "./intentSchemas.js";
import { renderQuote } from "./renderQuote.js";

const SETTLER = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";

/**
 * `POST /intents/v1/quotes`: prices a route and says what to put into `OnchainCrossChainOrder`.
 * Signs and sends nothing; the quote is kept for its lifetime so preflight can refer to it.
 */
export function postQuoteRoute(intents: IntentsServiceClient) {
  return defineRoute({
    method: "post",
    path: "/intents/v1/quotes",
    operationId: "createQuote",
    scope: "intents:read",
    body: z.object({
      originChainId: chainIdField("Chain where the user opens the order (FullSettler.open)"),
      destinationChainId: chainIdField("Chain where the recipient receives the output"),
      inputToken: evmAddress().meta({
        description: "Token the user puts in on the origin chain; the zero address is the native coin",
      }),
      outputToken: evmAddress().meta({
        description: "Token the recipient gets on the destination chain; the zero address is the native coin",
      }),
      amount: baseUnits("Base units of inputToken (EXACT_INPUT) or of outputToken (EXACT_OUTPUT)"),
      tradeType: z
        .enum(["EXACT_INPUT", "EXACT_OUTPUT"])
        .default("EXACT_INPUT")
        .meta({ description: "Which side `amount` fixes; EXACT_INPUT by default" }),
      userAddress: evmAddress().optional().meta({
        description: "The wallet that will call open; with it (or recipient) the answer carries the encoded orderData",
      }),
      recipient: evmAddress()
        .optional()
        .meta({ description: "Receiver on the destination chain; defaults to userAddress" }),
    }),
    docs: {
      summary: "Quote a cross-chain intent",
      description:
        "Output amount after the route's fee (fixed part plus basis points of the input, in the input token), the fee breakdown, the route's limits, a suggested fillDeadline (unix seconds, destination chain clock, inside the settler's bounds for an open sent before validUntil), the estimated fill time, the FullSettler (the open target and ERC-20 approval spender), orderDataType and the ABI-encoded orderData for OnchainCrossChainOrder with a fresh random nonce. orderData is null when neither userAddress nor recipient is given. Nothing is signed or sent. " +
        "The quote is kept for its API key only (another key's preflight reads its quoteId as unknown), by default until an hour after validUntil; " +
        "each API key keeps at most QUOTES_PER_KEY quotes (5,000 by default): a new quote is never refused for that, " +
        "it drops the key's quote that expires first, whose quoteId then reads as unknown (QUOTE_NOT_FOUND). " +
        "One API key may have 4 quotes in progress at once (by default); more answer 429 RATE_LIMITED. " +
        "A token pair no route serves answers 400 UNSUPPORTED_ROUTE with supportedRoutes and deploymentData {environment, href}: where the environment's deployment data (chains, tokens, FullSettler addresses, routes and their limits) is published.",
      tags: ["Intents"],
      success: {
        status: 200,
        description: "The quote",
        contentType: "application/json",
        schema: QuoteSchema,
        headers: { "Cache-Control": NO_STORE },
        example: {
          _links: {
            preflight: {
              href: "/intents/v1/preflight",
              title: "POST {userAddress, quoteId} to check this quote's order before signing",
            },
          },
          quoteId: "q_Jc2bU1c1Hf4yD0mW3i3o6A",
          originChainId: 31337,
          destinationChainId: 31338,
          inputToken: exampleTokens.origin,
          outputToken: exampleTokens.destination,
          inputAmount: "100000000",
          outputAmount: "99850000",
          minOutputAmount: "99850000",
          fees: {
            total: { amount: "150000", token: exampleTokens.origin, bps: 15 },
            breakdown: [
              { type: "filler", amount: "50000", token: exampleTokens.origin, bps: 5 },
              { type: "gas", amount: "100000", token: exampleTokens.origin, bps: 10 },
            ],
          },
          limits: { minInputAmount: "1000000", maxInputAmount: "100000000000" },
          fillDeadline: 1763770900,
          validUntil: "2025-11-22T00:07:00.000Z",
          estimatedFillTimeSeconds: 10,
          settlement: {
            fullSettler: SETTLER,
            approvalSpender: SETTLER,
            orderDataType: "0x710ff9c18e186a951058948b3f672872edcc77cebb109fa91b4dd01bda901fcc",
            orderData: "0x0000…(224 bytes)",
            order: {
              originChainId: 31337,
              destinationChainId: 31338,
              inputToken: exampleTokens.origin,
              inputAmount: "100000000",
              outputToken: exampleTokens.destination,
              outputAmount: "99850000",
              recipient: EXAMPLE_USER,
              nonce: "84170235526178390233",
              fillDeadline: 1763770900,
            },
          },
        },
      },
      errors: [
        { status: 400, code: "INVALID_REQUEST" },
        { status: 400, code: "INVALID_PARAMETER" },
        { status: 400, code: "INVALID_ADDRESS" },
        { status: 400, code: "UNSUPPORTED_ROUTE" },
        { status: 400, code: "AMOUNT_OUTSIDE_LIMITS" },
      ],
    },
    async handle({ body, context }) {
      const input = body!;
      const quote = await callUnary(
        intents,
        intents.quote,
        {
          originChainId: String(input.originChainId),
          destinationChainId: String(input.destinationChainId),
          inputToken: input.inputToken,
          outputToken: input.outputToken,
          amount: input.amount,
          tradeType:
            input.tradeType === "EXACT_OUTPUT" ? TradeType.TRADE_TYPE_EXACT_OUTPUT : TradeType.TRADE_TYPE_EXACT_INPUT,
          userAddress: input.userAddress,
          recipient: input.recipient,
        },
        // The key id: the quote is kept for this key only (its preflight finds it, no other key's does).
        callMetadata(context, context.keyId ?? ""),
        // Four chain reads and a Redis write.
        { deadline: Date.now() + 8_000 },
      );
      return { status: 200, headers: { "cache-control": "no-store" }, body: renderQuote(quote) };
    },
  });
}
