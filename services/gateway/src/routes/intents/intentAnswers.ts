import { component, decimalAtMostPattern, HalLinkSchema, OptionalHalLinkSchema, PageSchema } from "@platform/http";
import { IntentStatus, TransactionStatus } from "@platform/proto/intents/v1/intents";
import { maxUint256 } from "viem";
import { z } from "zod";

/**
 * The answers of the Service API (/intents/v1), as the intents renders write them: camelCase,
 * amounts as decimal strings (uint256), chain ids and block numbers as integers, null for a step
 * not seen yet.
 */

/** The Cache-Control of answers about one caller's own state, never kept by any cache. */
export const NO_STORE = "`no-store`: the answer is about the caller's own orders or quote and changes as they progress";

const integer = (description: string) => z.number().int().nonnegative().meta({ description });
const chainId = (description: string) => z.number().int().positive().meta({ description });
/** A uint256 as the services write it: a decimal integer string without leading zeros, at most 2^256 - 1. */
const UINT256_PATTERN = new RegExp(decimalAtMostPattern(maxUint256, { positive: false }));
const amount = (what = "An amount") =>
  z
    .string()
    .regex(UINT256_PATTERN)
    .meta({ description: `${what}: a uint256 as a decimal integer string, in the token's base units (its decimals)` });
const address = (what = "A 0x-prefixed 20-byte address") => z.string().meta({ description: what });
const hex32 = (what = "0x-prefixed 32-byte hex") => z.string().meta({ description: what });
const instant = (what = "ISO 8601 instant (UTC)") => z.string().meta({ description: what });
const link = (description: string) => HalLinkSchema.meta({ description });
const optionalLink = (description: string) => OptionalHalLinkSchema.meta({ description });
const linksOf = <S extends z.ZodRawShape>(shape: S) =>
  z.object(shape).meta({ description: "Related resources, by relation name (HAL)" });

export const FinalityNameSchema = z
  .enum(["latest", "safe", "finalized"])
  .nullable()
  .meta({ description: "How settled the block is" });

export const ChainAsOfSchema = component(
  "ChainAsOf",
  z
    .object({
      chainId: chainId("The chain's EVM chain id"),
      blockNumber: integer("The newest block read on that chain"),
      blockHash: hex32("That block's hash, 0x-prefixed 32 bytes"),
      timestamp: instant("That block's timestamp, ISO 8601 (UTC)"),
      finality: FinalityNameSchema,
    })
    .meta({ description: "The block of one chain the answer reflects" }),
);

export const ChainRefSchema = component(
  "ChainRef",
  z
    .object({
      chainId: chainId("The chain's EVM chain id"),
      blockNumber: integer("The block the step was seen in"),
      blockHash: hex32("That block's hash, 0x-prefixed 32 bytes"),
      parentHash: hex32("Its parent's hash, 0x-prefixed 32 bytes"),
      blockTimestamp: instant("That block's timestamp, ISO 8601 (UTC)"),
      txHash: hex32().nullable().meta({ description: "The transaction's hash, 0x-prefixed 32 bytes; null where none" }),
      txIndex: z
        .number()
        .int()
        .nonnegative()
        .nullable()
        .meta({ description: "The transaction's index in the block; null where none" }),
      logIndex: z
        .number()
        .int()
        .nonnegative()
        .nullable()
        .meta({ description: "The event log's index in the block; null where none" }),
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
      _links: linksOf({
        self: optionalLink("This order (intents/{orderId}), or its transaction while the order id is unknown"),
        transaction: optionalLink("The orders of its origin transaction (intents?originChainId=&txHash=)"),
      }),
      orderId: hex32().nullable().meta({
        description: "The order id (bytes32), 0x-prefixed; null for a notified transaction not yet seen on chain",
      }),
      status: z.enum(bareNames(IntentStatus, "INTENT_STATUS_")).meta({ description: "The order's state" }),
      isFinal: z.boolean().meta({ description: "Whether the state is final: SETTLED, REFUNDED or REVERTED" }),
      userAddress: address("The order's user (the `open` caller), EIP-55"),
      originChainId: chainId("The chain the order was opened on"),
      originTxHash: hex32()
        .nullable()
        .meta({ description: "The origin transaction's hash, 0x-prefixed; null while unknown" }),
      destinationChainId: chainId("The chain the order fills on")
        .nullable()
        .meta({ description: "The chain the order fills on; null until Open is seen" }),
      input: z
        .object({ token: address("The token escrowed on the origin chain"), amount: amount("The amount escrowed") })
        .nullable()
        .meta({ description: "What the user pays in; null until Open is seen" }),
      output: z
        .object({
          token: address("The token delivered on the destination chain"),
          amount: amount("The amount the recipient gets"),
          recipient: address("Who gets it"),
        })
        .nullable()
        .meta({ description: "What the recipient gets; null until Open is seen" }),
      fillDeadline: z.number().int().nonnegative().nullable().meta({
        description: "Unix seconds, destination clock: the last moment a fill counts; null until Open is seen",
      }),
      refundableAt: instant().nullable().meta({
        description:
          "From when `refund` may be called (fillDeadline + the settler's grace), ISO 8601; null until known",
      }),
      filler: address().nullable().meta({ description: "The filler's address, once a fill is seen; else null" }),
      opened: ChainRefSchema.nullable().meta({
        description: "Where `Open` was seen on the origin chain; null until then",
      }),
      filled: ChainRefSchema.nullable().meta({
        description: "Where `Filled` was seen on the destination chain; null until then",
      }),
      settled: ChainRefSchema.nullable().meta({
        description: "Where `Settled` was seen on the origin chain; null until then",
      }),
      refunded: ChainRefSchema.nullable().meta({
        description: "Where `Refunded` was seen on the origin chain; null until then",
      }),
      notifiedAt: instant()
        .nullable()
        .meta({ description: "When the transaction was first notified, ISO 8601; null if never notified" }),
      updatedAt: instant("The record's last change, ISO 8601 (UTC)"),
      asOf: z
        .array(ChainAsOfSchema)
        .meta({ description: "How far each chain involved (origin, and destination when known) has been read" }),
    })
    .meta({ description: "An intent mirrored from the chains" }),
);

export const IntentListSchema = component(
  "IntentList",
  z.object({
    _links: linksOf({
      self: link("This page"),
      next: optionalLink("The next page of the same query; absent on the last page"),
    }),
    userAddress: address("The user whose orders these are, EIP-55"),
    page: PageSchema.meta({ description: "Where this page stands: its size and the next page's cursor" }),
    _embedded: z
      .object({ items: z.array(IntentSchema).meta({ description: "The orders" }) })
      .meta({ description: "The page's items (HAL)" }),
  }),
);

export const TransactionIntentsSchema = component(
  "TransactionIntents",
  z.object({
    _links: linksOf({ self: link("This answer") }),
    originChainId: chainId("The chain of the transaction"),
    txHash: hex32("The transaction's hash, 0x-prefixed 32 bytes"),
    transactionStatus: z.enum(bareNames(TransactionStatus, "TRANSACTION_STATUS_")).meta({
      description:
        "The transaction's state: NOT_FOUND (neither notified nor seen), PENDING (not mined yet), SUCCEEDED, REVERTED or DROPPED (not mined within its window)",
    }),
    asOf: z.array(ChainAsOfSchema).meta({ description: "How far each chain involved has been read" }),
    _embedded: z
      .object({ items: z.array(IntentSchema).meta({ description: "The orders the transaction opened" }) })
      .meta({ description: "The transaction's orders (HAL)" }),
  }),
);

export const IntentNotificationSchema = component(
  "IntentNotification",
  z.object({
    originChainId: chainId("The chain of the notified transaction"),
    txHash: hex32("The notified transaction's hash, 0x-prefixed 32 bytes"),
    orderIds: z
      .array(hex32("An order id, 0x-prefixed 32 bytes"))
      .meta({ description: "The order ids the notification named" }),
    status: z.literal("SUBMITTED").meta({ description: "Always SUBMITTED: notified, not yet seen on chain" }),
    created: z.boolean().meta({ description: "false when this transaction was notified before" }),
    _links: linksOf({ status: link("The transaction's orders and status (intents?originChainId=&txHash=)") }),
  }),
);

const FeeSchema = z.object({
  amount: amount("The fee"),
  token: address("The token the fee is in"),
  bps: z.number().int().meta({ description: "The fee in basis points of the input amount (100 bps = 1 %)" }),
});

export const OrderParamsSchema = component(
  "OrderParams",
  z
    .object({
      originChainId: chainId("The chain the order opens on"),
      destinationChainId: chainId("The chain it fills on"),
      inputToken: address("The token escrowed on the origin chain"),
      inputAmount: amount("The amount escrowed"),
      outputToken: address("The token delivered on the destination chain"),
      outputAmount: amount("The amount delivered"),
      recipient: address().nullable().meta({ description: "Who gets the output; null for the user" }),
      nonce: amount("The order's nonce (not an amount)"),
      fillDeadline: z.number().int().nonnegative().meta({ description: "Unix seconds" }),
    })
    .meta({ description: "The order `orderData` encodes, with the on-chain order's origin chain and fill deadline" }),
);

export const QuoteSchema = component(
  "Quote",
  z.object({
    _links: linksOf({ preflight: link("POST the quote's order here to check it before signing") }),
    quoteId: z.string().meta({ description: "The quote's id, for preflight and notification" }),
    originChainId: chainId("The chain the order opens on"),
    destinationChainId: chainId("The chain it fills on"),
    inputToken: address("The token paid in on the origin chain"),
    outputToken: address("The token delivered on the destination chain"),
    inputAmount: amount("What the user pays in"),
    outputAmount: amount("What the recipient is expected to get"),
    minOutputAmount: amount("The least the recipient gets: what the order guarantees"),
    fees: z
      .object({
        total: FeeSchema.nullable().meta({ description: "All fees together; null where not given" }),
        breakdown: z
          .array(
            FeeSchema.extend({
              type: z.enum(["filler", "gas", "protocol", "other"]).meta({ description: "What the fee pays for" }),
            }),
          )
          .meta({ description: "The fees one by one" }),
      })
      .meta({ description: "What the quote charges, in the input token" }),
    limits: z
      .object({
        minInputAmount: amount("The smallest input the route takes").nullable().meta({
          description:
            "The smallest input the route takes, a uint256 decimal string in base units; null for no minimum",
        }),
        maxInputAmount: amount("The largest input the route takes").nullable().meta({
          description: "The largest input the route takes, a uint256 decimal string in base units; null for no maximum",
        }),
      })
      .meta({ description: "The input amounts the route takes" }),
    fillDeadline: z.number().int().nonnegative().meta({ description: "Unix seconds" }),
    validUntil: instant("The quote is not honoured after this time, ISO 8601 (UTC)"),
    estimatedFillTimeSeconds: z
      .number()
      .int()
      .nonnegative()
      .meta({ description: "Expected seconds from open to fill" }),
    settlement: z
      .object({
        fullSettler: address("The FullSettler contract to call `open` on"),
        approvalSpender: address("The address the input token must be approved to (the FullSettler)"),
        orderDataType: hex32("The order data's type hash, 0x-prefixed 32 bytes"),
        orderData: z
          .string()
          .nullable()
          .meta({ description: "The ABI-encoded order data, 0x-prefixed hex; null where not built" }),
        order: OrderParamsSchema.nullable().meta({
          description: "What orderData encodes, decoded; null where not built",
        }),
      })
      .nullable()
      .meta({ description: "How to open the order on chain; null where the route gives none" }),
  }),
);

export const PreflightSchema = component(
  "Preflight",
  z.object({
    _links: linksOf({ intent: optionalLink("The order's status (intents/{orderId}), when its id is known") }),
    ok: z.boolean().meta({ description: "Whether no check failed" }),
    orderId: hex32()
      .nullable()
      .meta({ description: "The id the order will have on chain, 0x-prefixed 32 bytes; null where it cannot be told" }),
    checks: z
      .array(
        z
          .object({
            name: z.string().meta({
              description:
                "The check's stable SCREAMING_SNAKE name: ROUTE_SUPPORTED, AMOUNT_WITHIN_LIMITS, QUOTE_NOT_EXPIRED, FILL_DEADLINE_BOUNDS, BALANCE, ALLOWANCE, NATIVE_GAS, SIMULATION (more may come)",
            }),
            status: z.enum(["pass", "fail", "warn", "skipped"]).meta({ description: "The check's outcome" }),
            expected: z.string().nullable().meta({
              description: "What the check needs (e.g. the amount an allowance must cover), as text; null where none",
            }),
            actual: z.string().nullable().meta({
              description:
                "What the chain or the configuration says, in the units of expected, as text; null where none",
            }),
            detail: z.string().meta({ description: "What the outcome means, for people" }),
          })
          .meta({ description: "One check of the order" }),
      )
      .meta({ description: "Every check run, in order" }),
    asOf: z.array(ChainAsOfSchema).meta({ description: "The block of each chain the checks read" }),
    userAddress: address().meta({ description: "The user the order was checked as" }),
  }),
);
