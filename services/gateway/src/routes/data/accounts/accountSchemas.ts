import { component, HalLinkSchema, OptionalHalLinkSchema, PageSchema } from "@platform/http";
import { Direction, TransactionSource, TransactionType } from "@platform/proto/common/v1/network";
import { z } from "zod";
import { shortNames } from "../shared/render.js";
import {
  AccountSchema,
  AsOfSchema,
  baseUnits,
  blockNumber,
  collectionLinks,
  count,
  decimal,
  enumName,
  IntervalSchema,
  instant,
  netuid,
  nullableBaseUnits,
  nullableDecimal,
  SubjectSchema,
} from "../shared/wire.js";

/** The answers of the accounts group, as renderAccounts.ts renders them. */

export const PositionSchema = component(
  "Position",
  z
    .object({
      _links: z.object({
        self: HalLinkSchema,
        subnet: HalLinkSchema,
        validators: HalLinkSchema,
        hotkey: OptionalHalLinkSchema,
      }),
      netuid: netuid(),
      hotkey: AccountSchema.nullable(),
      hotkey_name: z.string().nullable(),
      stake_nalpha: baseUnits(),
      price_tao: decimal(),
      value_rao: baseUnits(),
    })
    .meta({ description: "A staking position: alpha staked on a hotkey in one subnet, valued in TAO" }),
);

export const BalanceLatestSchema = component(
  "BalanceLatest",
  z.object({
    _links: z.object({
      self: HalLinkSchema,
      history: HalLinkSchema,
      transactions: HalLinkSchema,
      "coin-price": HalLinkSchema,
    }),
    as_of: AsOfSchema.nullable(),
    address: SubjectSchema.nullable(),
    balance_free_rao: baseUnits(),
    balance_reserved_rao: baseUnits(),
    balance_frozen_rao: baseUnits(),
    balance_staked_rao: baseUnits(),
    balance_staked_root_rao: baseUnits(),
    balance_staked_alpha_value_rao: baseUnits(),
    balance_total_rao: baseUnits(),
    valuation: z.enum(["spot", "unstake"]).nullable(),
    price_usd: nullableDecimal(),
    balance_total_usd: nullableDecimal(),
    positions_count: count(),
    _embedded: z.object({ positions: z.array(PositionSchema) }),
  }),
);

export const BalancePointSchema = component(
  "BalancePoint",
  z.object({
    bucket_start: instant(),
    block_number: blockNumber(),
    timestamp: instant(),
    balance_free_rao: baseUnits(),
    balance_reserved_rao: baseUnits(),
    balance_staked_rao: baseUnits(),
    balance_staked_root_rao: baseUnits(),
    balance_staked_alpha_value_rao: baseUnits(),
    balance_total_rao: baseUnits(),
    price_usd: nullableDecimal(),
    balance_total_usd: nullableDecimal(),
    change_total_rao: baseUnits(),
    positions: z.array(z.object({ netuid: netuid(), alpha_nalpha: baseUnits() })),
  }),
);

export const BalanceHistorySchema = component(
  "BalanceHistory",
  z.object({
    _links: collectionLinks({ latest: HalLinkSchema, transactions: HalLinkSchema }),
    as_of: AsOfSchema.nullable(),
    address: SubjectSchema.nullable(),
    interval: IntervalSchema,
    page: PageSchema,
    _embedded: z.object({ items: z.array(BalancePointSchema) }),
  }),
);

export const TransactionSchema = component(
  "Transaction",
  z.object({
    _links: z.object({ subnet: OptionalHalLinkSchema, counterparty: OptionalHalLinkSchema }),
    id: z.string(),
    type: enumName(shortNames(TransactionType, "TRANSACTION_TYPE_"), "What the transaction did"),
    direction: enumName(shortNames(Direction, "DIRECTION_"), "Seen from the queried account"),
    success: z.boolean(),
    block_number: blockNumber(),
    timestamp: instant(),
    extrinsic_id: z.string().nullable(),
    extrinsic_hash: z.string().nullable(),
    evm_tx_hash: z.string().nullable(),
    from: AccountSchema.nullable(),
    to: AccountSchema.nullable(),
    amount_rao: nullableBaseUnits(),
    fee_rao: nullableBaseUnits(),
    netuid: netuid().nullable(),
    hotkey: AccountSchema.nullable(),
    alpha_nalpha: nullableBaseUnits(),
    effective_price_tao: nullableDecimal(),
    slippage: nullableDecimal(),
    source: enumName(shortNames(TransactionSource, "TRANSACTION_SOURCE_"), "Where the record came from"),
    event_name: z.string().nullable(),
  }),
);

export const TransactionsSchema = component(
  "Transactions",
  z.object({
    _links: collectionLinks({ balance: HalLinkSchema, history: HalLinkSchema }),
    as_of: AsOfSchema.nullable(),
    address: SubjectSchema.nullable(),
    page: PageSchema,
    _embedded: z.object({ items: z.array(TransactionSchema) }),
  }),
);
