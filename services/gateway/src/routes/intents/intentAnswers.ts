import { component, HalLinkSchema, OptionalHalLinkSchema, PageSchema } from "@platform/http";
import { IntentStatus, TransactionStatus } from "@platform/proto/intents/v1/intents";
import { z } from "zod";

/**
 * The answers of the Service API (/intents/v1), as the intents renders write them: camelCase,
 * amounts as decimal strings (uint256), chain ids and block numbers as integers, null for a step
 * not seen yet.
 */

/** The Cache-Control of answers about one caller's own state, never kept by any cache. */
export const NO_STORE = "`no-store`: the answer is about the caller's own orders or quote and changes as they progress";

const integer = () => z.number().int().nonnegative();
const chainId = () => z.number().int().positive();
const amount = () => z.string().meta({ description: "uint256 as a decimal string, in the token's base units" });
const address = () => z.string().meta({ description: "0x-prefixed 20-byte address" });
const hex32 = () => z.string().meta({ description: "0x-prefixed 32-byte hex" });
const instant = () => z.string().meta({ description: "ISO 8601 instant (UTC)" });

export const FinalityNameSchema = z
  .enum(["latest", "safe", "finalized"])
  .nullable()
  .meta({ description: "How settled the block is" });

export const ChainAsOfSchema = component(
  "ChainAsOf",
  z
    .object({
      chainId: chainId(),
      blockNumber: integer(),
      blockHash: hex32(),
      timestamp: instant(),
      finality: FinalityNameSchema,
    })
    .meta({ description: "The block of one chain the answer reflects" }),
);

export const ChainRefSchema = component(
  "ChainRef",
  z
    .object({
      chainId: chainId(),
      blockNumber: integer(),
      blockHash: hex32(),
      parentHash: hex32(),
      blockTimestamp: instant(),
      txHash: hex32().nullable(),
      txIndex: z.number().int().nonnegative().nullable(),
      logIndex: z.number().int().nonnegative().nullable(),
      finality: FinalityNameSchema,
    })
    .meta({ description: "Where on a chain a step of the order was seen" }),
);

/** The names of a proto enum's values without their prefix, as the renders write them (`INTENT_STATUS_OPEN` → `OPEN`). */
const bareNames = (names: object, prefix: string) =>
  Object.keys(names)
    .filter((name) => name.startsWith(prefix))
    .map((name) => name.slice(prefix.length)) as [string, ...string[]];

export const IntentSchema = component(
  "Intent",
  z
    .object({
      _links: z.object({ self: OptionalHalLinkSchema, transaction: OptionalHalLinkSchema }),
      orderId: hex32().nullable(),
      status: z.enum(bareNames(IntentStatus, "INTENT_STATUS_")).meta({ description: "The order's state" }),
      isFinal: z.boolean(),
      userAddress: address(),
      originChainId: chainId(),
      originTxHash: hex32().nullable(),
      destinationChainId: chainId().nullable(),
      input: z.object({ token: address(), amount: amount() }).nullable(),
      output: z.object({ token: address(), amount: amount(), recipient: address() }).nullable(),
      fillDeadline: z.number().int().nonnegative().nullable().meta({ description: "Unix seconds, destination clock" }),
      refundableAt: instant().nullable(),
      filler: address().nullable(),
      opened: ChainRefSchema.nullable(),
      filled: ChainRefSchema.nullable(),
      settled: ChainRefSchema.nullable(),
      refunded: ChainRefSchema.nullable(),
      notifiedAt: instant().nullable(),
      updatedAt: instant(),
      asOf: z.array(ChainAsOfSchema),
    })
    .meta({ description: "An intent mirrored from the chains" }),
);

export const IntentListSchema = component(
  "IntentList",
  z.object({
    _links: z.object({ self: HalLinkSchema, next: OptionalHalLinkSchema }),
    userAddress: address(),
    page: PageSchema,
    _embedded: z.object({ items: z.array(IntentSchema) }),
  }),
);

export const TransactionIntentsSchema = component(
  "TransactionIntents",
  z.object({
    _links: z.object({ self: HalLinkSchema }),
    originChainId: chainId(),
    txHash: hex32(),
    transactionStatus: z.enum(bareNames(TransactionStatus, "TRANSACTION_STATUS_")),
    asOf: z.array(ChainAsOfSchema),
    _embedded: z.object({ items: z.array(IntentSchema) }),
  }),
);

export const IntentNotificationSchema = component(
  "IntentNotification",
  z.object({
    originChainId: chainId(),
    txHash: hex32(),
    orderIds: z.array(hex32()),
    status: z.literal("SUBMITTED"),
    created: z.boolean().meta({ description: "false when this transaction was notified before" }),
    _links: z.object({ status: HalLinkSchema }),
  }),
);

const FeeSchema = z.object({ amount: amount(), token: address(), bps: z.number().int() });

export const OrderParamsSchema = component(
  "OrderParams",
  z
    .object({
      originChainId: chainId(),
      destinationChainId: chainId(),
      inputToken: address(),
      inputAmount: amount(),
      outputToken: address(),
      outputAmount: amount(),
      recipient: address().nullable(),
      nonce: amount(),
      fillDeadline: z.number().int().nonnegative().meta({ description: "Unix seconds" }),
    })
    .meta({ description: "The order `orderData` encodes, with the on-chain order's origin chain and fill deadline" }),
);

export const QuoteSchema = component(
  "Quote",
  z.object({
    _links: z.object({ preflight: HalLinkSchema }),
    quoteId: z.string(),
    originChainId: chainId(),
    destinationChainId: chainId(),
    inputToken: address(),
    outputToken: address(),
    inputAmount: amount(),
    outputAmount: amount(),
    minOutputAmount: amount(),
    fees: z.object({
      total: FeeSchema.nullable(),
      breakdown: z.array(FeeSchema.extend({ type: z.enum(["filler", "gas", "protocol", "other"]) })),
    }),
    limits: z.object({ minInputAmount: amount().nullable(), maxInputAmount: amount().nullable() }),
    fillDeadline: z.number().int().nonnegative().meta({ description: "Unix seconds" }),
    validUntil: instant(),
    estimatedFillTimeSeconds: z.number().int().nonnegative(),
    settlement: z
      .object({
        fullSettler: address(),
        approvalSpender: address(),
        orderDataType: hex32(),
        orderData: z.string().nullable(),
        order: OrderParamsSchema.nullable(),
      })
      .nullable(),
  }),
);

export const PreflightSchema = component(
  "Preflight",
  z.object({
    _links: z.object({ intent: OptionalHalLinkSchema }),
    ok: z.boolean(),
    orderId: hex32().nullable(),
    checks: z.array(
      z.object({
        name: z.string(),
        status: z.enum(["pass", "fail", "warn", "skipped"]),
        expected: z.string().nullable(),
        actual: z.string().nullable(),
        detail: z.string(),
      }),
    ),
    asOf: z.array(ChainAsOfSchema),
    userAddress: address().meta({ description: "The user the order was checked as" }),
  }),
);
