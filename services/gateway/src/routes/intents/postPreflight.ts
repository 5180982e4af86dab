import { callUnary } from "@platform/grpc";
import { defineRoute, patternString } from "@platform/http";
import type { IntentsServiceClient, OrderParams } from "@platform/proto/intents/v1/intents";
import { z } from "zod";
import { callMetadata } from "../../backends.js";
import { evmAddress } from "../schemas.js";
import { NO_STORE, PreflightSchema } from "./intentAnswers.js";
import { EXAMPLE_ORDER_ID, EXAMPLE_USER } from "./intentExamples.js";
import { baseUnits, chainIdField } from "./intentSchemas.js";
import { decodeOnchainOrder, ORDER_DATA_PATTERN, ORDER_DATA_TYPE } from "./orderDataCodec.js";
import { renderPreflight } from "./renderPreflight.js";

const DECODED_FIELDS = [
  "destinationChainId",
  "inputToken",
  "inputAmount",
  "outputToken",
  "outputAmount",
  "recipient",
  "nonce",
] as const;
const ENCODED_FIELDS = ["orderDataType", "orderData"] as const;

/** The one orderDataType, in any case: `0x710f…` as `^0x71[0f]...` with each letter either case. */
const orderDataTypePattern = new RegExp(
  `^${ORDER_DATA_TYPE.replace(/[a-f]/g, (letter) => `[${letter}${letter.toUpperCase()}]`)}$`,
);

/**
 * The order to check, in either form: the `OnchainCrossChainOrder` the wallet will send (orderDataType
 * and orderData) or its decoded fields (as a quote's settlement.order). Both carry the origin chain
 * and the fill deadline, which are not inside orderData.
 */
const orderSchema = z
  .object({
    originChainId: chainIdField("Chain the order is opened on"),
    fillDeadline: z
      .number()
      .int()
      .positive()
      .max(4_294_967_295)
      .meta({ description: "OnchainCrossChainOrder.fillDeadline, unix seconds" }),
    orderDataType: patternString(orderDataTypePattern, {
      message: `must be the FullSettler's ${ORDER_DATA_TYPE}`,
      code: "UNSUPPORTED_ORDER_DATA_TYPE",
    })
      .optional()
      .meta({ description: `OnchainCrossChainOrder.orderDataType: the FullSettler's ${ORDER_DATA_TYPE} (any case)` }),
    orderData: z
      .string()
      .regex(ORDER_DATA_PATTERN, {
        error:
          "must be abi.encode(FullOrderParams): 224 bytes of 0x-prefixed hex, addresses left-padded, amounts not zero",
      })
      .optional()
      .meta({ description: "OnchainCrossChainOrder.orderData: abi.encode(FullOrderParams), seven words" }),
    destinationChainId: chainIdField("Decoded form: destination chain").optional(),
    inputToken: evmAddress().optional(),
    inputAmount: baseUnits("Decoded form: input amount, base units").optional(),
    outputToken: evmAddress().optional(),
    outputAmount: baseUnits("Decoded form: output amount, base units").optional(),
    recipient: evmAddress().optional(),
    nonce: baseUnits("Decoded form: the order nonce (uint256)", { positive: false }).optional(),
  })
  .superRefine((order, ctx) => {
    if (order.orderData !== undefined || order.orderDataType !== undefined) {
      if (order.orderData === undefined)
        ctx.addIssue({ code: "custom", path: ["orderData"], message: "is required with orderDataType" });
      if (order.orderDataType === undefined)
        ctx.addIssue({ code: "custom", path: ["orderDataType"], message: "is required with orderData" });
      return;
    }
    for (const field of DECODED_FIELDS) {
      if (order[field] === undefined)
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: "is required unless orderDataType and orderData are given",
        });
    }
  })
  // The rule above, for the document: both encoded fields, or neither and every decoded one.
  .meta({
    anyOf: [
      { required: [...ENCODED_FIELDS] },
      { required: [...DECODED_FIELDS], properties: Object.fromEntries(ENCODED_FIELDS.map((field) => [field, false])) },
    ],
  });

type OrderBody = z.infer<typeof orderSchema>;

function toOrderParams(order: OrderBody): OrderParams {
  if (order.orderData !== undefined && order.orderDataType !== undefined) {
    return decodeOnchainOrder({
      originChainId: order.originChainId,
      fillDeadline: order.fillDeadline,
      orderDataType: order.orderDataType,
      orderData: order.orderData,
    });
  }
  return {
    originChainId: String(order.originChainId),
    destinationChainId: String(order.destinationChainId),
    inputToken: order.inputToken!,
    inputAmount: order.inputAmount!,
    outputToken: order.outputToken!,
    outputAmount: order.outputAmount!,
    recipient: order.recipient!,
    nonce: order.nonce!,
    fillDeadline: order.fillDeadline,
  };
}

/** `POST /intents/v1/preflight`: named checks of an order against the chain, before the user signs. */
export function postPreflightRoute(intents: IntentsServiceClient) {
  return defineRoute({
    method: "post",
    path: "/intents/v1/preflight",
    operationId: "preflightIntent",
    scope: "intents:read",
    // A dozen chain reads including an eth_call and a gas estimate: heavier than a read.
    cost: 5,
    body: z
      .object({
        userAddress: evmAddress().meta({
          description:
            "The wallet that will call open: balances, allowance and gas are its, and the simulation runs from it",
        }),
        quoteId: z
          .string()
          .min(1)
          .max(128)
          .optional()
          .meta({ description: "The quote the order came from; enables QUOTE_NOT_EXPIRED and QUOTE_MATCHES" }),
        order: orderSchema.optional(),
      })
      .refine((body) => body.order !== undefined || body.quoteId !== undefined, {
        error: "is required unless quoteId is given",
        path: ["order"],
      })
      // The rule above, for the document.
      .meta({ anyOf: [{ required: ["order"] }, { required: ["quoteId"] }] }),
    docs: {
      summary: "Check an order before signing it",
      description:
        "Runs named checks on the order as the user would open it, each pass, fail, warn or skipped with expected and actual values: ROUTE_SUPPORTED, AMOUNT_WITHIN_LIMITS, FEE_COVERED (the output leaves the route's fee), QUOTE_NOT_EXPIRED and QUOTE_MATCHES (skipped without quoteId), FILL_DEADLINE_BOUNDS (the settler's minFillWindow/maxFillBuffer read on chain), BALANCE, ALLOWANCE to the FullSettler (skipped for the native coin), NATIVE_GAS (warn only) and SIMULATION (eth_call of open from the user's address; a revert is named by the FullSettler's custom error). ok is false when any check fails. orderId is the id open will emit (resolve called as the user). The order is given as OnchainCrossChainOrder fields (orderDataType, orderData) or decoded; with only quoteId, the quote's own order is checked. Only the tokens of configured routes are read: an inputToken that is not the input of a route from the origin chain, or an outputToken that is not the output of a route to the destination chain, is refused with 400 UNSUPPORTED_ROUTE (with parameter, supportedRoutes and deploymentData {environment, href}, where the environment's deployment data is published) before any chain is read; two such tokens that no route pairs are checked, and ROUTE_SUPPORTED fails. One API key may run 2 preflights at once (by default); more answer 429 RATE_LIMITED.",
      tags: ["Intents"],
      success: {
        status: 200,
        description: "The checks",
        contentType: "application/json",
        schema: PreflightSchema,
        headers: { "Cache-Control": NO_STORE },
        example: {
          _links: {
            intent: {
              href: `/intents/v1/intents/${EXAMPLE_ORDER_ID}`,
              title: "The order's mirrored status once it is opened",
            },
          },
          ok: false,
          orderId: EXAMPLE_ORDER_ID,
          checks: [
            {
              name: "ROUTE_SUPPORTED",
              status: "pass",
              expected: "a configured route",
              actual: "0x5FbD… on 31337 -> 0xe7f1… on 31338",
              detail: "the route is supported",
            },
            {
              name: "QUOTE_NOT_EXPIRED",
              status: "skipped",
              expected: null,
              actual: null,
              detail: "no quoteId was given",
            },
            {
              name: "ALLOWANCE",
              status: "fail",
              expected: ">= 100000000",
              actual: "0",
              detail: "approve the FullSettler 0x9fE4… for at least 100000000 of the input token first",
            },
            {
              name: "SIMULATION",
              status: "fail",
              expected: "open succeeds",
              actual: "reverts with TokenTransferFailed",
              detail:
                "open reverts as the user at block 1204: TokenTransferFailed(token=0x5FbD…, reason=ERC20InsufficientAllowance(spender=0x9fE4…, allowance=0, needed=100000000))",
            },
          ],
          asOf: [
            {
              chainId: 31337,
              blockNumber: 1204,
              blockHash: "0x8e3c…",
              timestamp: "2025-11-22T00:06:40.000Z",
              finality: "latest",
            },
          ],
          userAddress: EXAMPLE_USER,
        },
      },
      errors: [
        { status: 400, code: "INVALID_REQUEST" },
        { status: 400, code: "INVALID_PARAMETER" },
        { status: 400, code: "INVALID_ADDRESS" },
        { status: 400, code: "UNSUPPORTED_ORDER_DATA_TYPE" },
        { status: 400, code: "UNSUPPORTED_ROUTE" },
        { status: 404, code: "QUOTE_NOT_FOUND" },
      ],
    },
    async handle({ body, context }) {
      const input = body!;
      const answer = await callUnary(
        intents,
        intents.preflight,
        {
          userAddress: input.userAddress,
          quoteId: input.quoteId,
          order: input.order === undefined ? undefined : toOrderParams(input.order),
        },
        // The key id bounds how many preflights one key runs at once (intents-gateway).
        callMetadata(context, context.keyId ?? ""),
        { deadline: Date.now() + 10_000 },
      );
      return {
        status: 200,
        headers: { "cache-control": "no-store" },
        body: { ...renderPreflight(answer), userAddress: input.userAddress } satisfies z.output<typeof PreflightSchema>,
      };
    },
  });
}
