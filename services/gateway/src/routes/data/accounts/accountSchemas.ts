import { component } from "@platform/http";
import { Direction, TransactionSource, TransactionType } from "@platform/proto/common/v1/network";
import { z } from "zod";
import { shortNames } from "../shared/render.js";
import {
  AccountSchema,
  asOf,
  baseUnits,
  blockNumber,
  collectionLinks,
  count,
  decimal,
  embeddedItems,
  enumName,
  IntervalSchema,
  instant,
  link,
  linksOf,
  netuid,
  nullableBaseUnits,
  nullableDecimal,
  optionalLink,
  page,
  SubjectSchema,
} from "../shared/wire.js";

/** The answers of the accounts group, as renderAccounts.ts renders them. */

const subject = () =>
  SubjectSchema.nullable().meta({
    description: "The account asked about, in every form; null when the backend named none",
  });

/** The balance members the latest answer and the history's points share. */
const balanceMembers = {
  balance_free_rao: baseUnits("Free balance (System.Account data.free), rao: frozen funds included"),
  balance_reserved_rao: baseUnits("Reserved balance (System.Account data.reserved), rao"),
  balance_staked_rao: baseUnits("balance_staked_root_rao + balance_staked_alpha_value_rao, rao"),
  balance_staked_root_rao: baseUnits("Stake on the root subnet (netuid 0), rao: TAO, counted 1:1"),
  balance_staked_alpha_value_rao: baseUnits(
    "The account's subnet stake valued at spot: each position's alpha × its pool's price_tao, summed, rao (rounded toward zero; 0 for a subnet without a known price). Not what unstaking would give, which pays the swap's price impact and fee",
  ),
  balance_total_rao: baseUnits("balance_free_rao + balance_reserved_rao + balance_staked_rao, rao"),
};

export const PositionSchema = component(
  "Position",
  z
    .object({
      _links: linksOf({
        self: link("The account's balance in this subnet (balance/latest?netuid=)"),
        subnet: link("The subnet (subnets/latest?netuid=)"),
        validators: link("The subnet's validators (subnets/{netuid}/validators/latest)"),
        hotkey: optionalLink("The hotkey's own balance (accounts/{hotkey}/balance/latest); absent without a hotkey"),
      }),
      netuid: netuid(),
      hotkey: AccountSchema.nullable().meta({ description: "The hotkey staked on; null where unknown" }),
      hotkey_name: z.string().nullable().meta({
        description:
          "The hotkey's identity name: always null in this version (not looked up; see the subnet's validators)",
      }),
      stake_nalpha: baseUnits("Alpha staked on the hotkey in this subnet, nalpha (on root: TAO, in rao)"),
      price_tao: decimal(
        "The pool's price used to value it, TAO per alpha: 1 on root; 0 when the subnet's price is unknown",
      ),
      value_rao: baseUnits("stake_nalpha × price_tao, rao (rounded toward zero): its spot value"),
    })
    .meta({ description: "A staking position: alpha staked on a hotkey in one subnet, valued in TAO" }),
);

export const BalanceLatestSchema = component(
  "BalanceLatest",
  z.object({
    _links: linksOf({
      self: link("This answer"),
      history: link("The account's balance history (balance/history)"),
      transactions: link("The account's transactions"),
      "coin-price": link("TAO's price (coin/price/latest)"),
    }),
    as_of: asOf(),
    address: subject(),
    balance_free_rao: balanceMembers.balance_free_rao,
    balance_reserved_rao: balanceMembers.balance_reserved_rao,
    balance_frozen_rao: baseUnits(
      "Frozen balance (System.Account data.frozen; the larger of misc_frozen and fee_frozen in older runtimes), rao: part of balance_free_rao that cannot be spent",
    ),
    balance_staked_rao: balanceMembers.balance_staked_rao,
    balance_staked_root_rao: balanceMembers.balance_staked_root_rao,
    balance_staked_alpha_value_rao: balanceMembers.balance_staked_alpha_value_rao,
    balance_total_rao: balanceMembers.balance_total_rao,
    valuation: z
      .enum(["spot", "unstake"])
      .nullable()
      .meta({ description: "How stake is valued: spot (alpha × the pool's price), the only one served" }),
    price_usd: nullableDecimal("TAO's newest USD price at as_of, USD per TAO; null without a price"),
    balance_total_usd: nullableDecimal("balance_total_rao in TAO × price_usd, USD, exact; null without a price"),
    positions_count: count("Positions listed (those of the netuids asked for, else all)"),
    _embedded: z
      .object({
        positions: z
          .array(PositionSchema)
          .meta({ description: "The account's staking positions, one per (netuid, hotkey)" }),
      })
      .meta({ description: "The account's positions (HAL)" }),
  }),
);

export const BalancePointSchema = component(
  "BalancePoint",
  z.object({
    bucket_start: instant("Start of the bucket (aligned to UTC), ISO 8601"),
    block_number: blockNumber(
      "The block of the balance shown: the account's last change at or before the bucket's end",
    ),
    timestamp: instant("That block's timestamp, ISO 8601 (UTC)"),
    ...balanceMembers,
    price_usd: nullableDecimal("TAO's USD price at the bucket's end, USD per TAO; null without a price"),
    balance_total_usd: nullableDecimal("balance_total_rao in TAO × price_usd, USD, exact; null without a price"),
    change_total_rao: baseUnits(
      "balance_total_rao less the previous bucket's (0 for the window's first bucket), rao; negative when it fell",
    ),
    positions: z
      .array(
        z
          .object({
            netuid: netuid(),
            alpha_nalpha: baseUnits("Alpha held in the subnet over all hotkeys, nalpha (on root: TAO, in rao)"),
            reward_alpha_nalpha: baseUnits(
              "Staking income in the subnet over the bucket (the alpha of its reward transactions, summed; negative for a loss), nalpha (on root: rao)",
            ),
          })
          .meta({ description: "The account's stake in one subnet" }),
      )
      .meta({
        description:
          "The account's stake by subnet at that block, by netuid; a subnet left during the bucket is listed with alpha_nalpha 0 when it paid a reward in it",
      }),
    reward_rao: baseUnits(
      "Staking income over the bucket (its part within the window): the amount_rao of the account's reward transactions in it, each the TAO value at its own block's pool price, summed (losses subtracted), rao. change_total_rao = reward_rao + the account's own transactions' effect + price moves",
    ),
    reward_blocks: count("Epoch blocks in the bucket that paid the account a reward (its reward transactions' blocks)"),
  }),
);

export const BalanceHistorySchema = component(
  "BalanceHistory",
  z.object({
    _links: collectionLinks({
      latest: link("The account's balance now (balance/latest)"),
      transactions: link("The account's transactions"),
    }),
    as_of: asOf(),
    address: subject(),
    interval: IntervalSchema,
    page: page(),
    _embedded: embeddedItems(
      BalancePointSchema,
      "The points, one per bucket from the account's first balance on, in the order asked for",
    ),
  }),
);

export const TransactionSchema = component(
  "Transaction",
  z.object({
    _links: linksOf({
      subnet: optionalLink("The subnet of a stake operation (subnets/latest?netuid=)"),
      counterparty: optionalLink("The other account's balance (accounts/{address}/balance/latest)"),
    }),
    id: z.string().meta({
      description:
        "The record's id, stable: <block>-<extrinsic index>-<event index> for a chain event; <block>-reward-<netuid>-<hotkey public key> for a reward",
    }),
    type: enumName(
      shortNames(TransactionType, "TRANSACTION_TYPE_"),
      "What the transaction did; reward: a position's staking income at its subnet's epoch (the position's alpha change at the block less that block's stakes and unstakes on it), not an extrinsic",
    ),
    direction: enumName(
      shortNames(Direction, "DIRECTION_"),
      "Seen from the queried account: in (funds or stake came to it) or out; a reward is in, or out for a position that lost value at the epoch",
    ),
    success: z.boolean().meta({ description: "Whether the extrinsic succeeded (a failed one only paid its fee)" }),
    block_number: blockNumber("The block it is in"),
    block_hash: z
      .string()
      .regex(/^0x[0-9a-f]{64}$/)
      .nullable()
      .meta({ description: "That block's hash, 0x-prefixed 32 bytes (lowercase hex); null where not recorded" }),
    timestamp: instant("The block's timestamp, ISO 8601 (UTC)"),
    extrinsic_id: z
      .string()
      .nullable()
      .meta({ description: "<block>-<extrinsic index> of the extrinsic it came from; null where none" }),
    extrinsic_hash: z
      .string()
      .nullable()
      .meta({ description: "The extrinsic's hash, 0x-prefixed 32 bytes; null where none" }),
    evm_tx_hash: z
      .string()
      .nullable()
      .meta({ description: "The EVM transaction's own hash, for activity from an EVM transaction; else null" }),
    from: AccountSchema.nullable().meta({
      description: "The sender (the staking coldkey of a stake operation); null where none",
    }),
    to: AccountSchema.nullable().meta({ description: "The receiver of a transfer; null where none" }),
    amount_rao: nullableBaseUnits(
      "TAO moved, rao: a transfer's amount; the TAO of a stake_add or stake_remove as its StakeAdded or StakeRemoved event gives it (staked in, or received out); a reward's TAO value: alpha_nalpha × the subnet pool's price_tao at block_number (9 decimals), rounded toward zero (1:1 on root); null where none",
    ),
    fee_rao: nullableBaseUnits(
      "The transaction fee the extrinsic paid, rao, on its first record of the payer (0 on the others); null where unknown",
    ),
    netuid: netuid().nullable().meta({ description: "The subnet of a stake operation or reward; else null" }),
    hotkey: AccountSchema.nullable().meta({
      description: "The hotkey of a stake operation, or of the position a reward paid; else null",
    }),
    alpha_nalpha: nullableBaseUnits(
      "Alpha bought (stake_add) or sold (stake_remove), or a reward's income (its absolute value; direction says gain or loss), nalpha (on root: rao); null where none",
    ),
    effective_price_tao: nullableDecimal(
      "amount_rao / alpha_nalpha of a stake_add or stake_remove, TAO per alpha (9 decimal places, truncated): the average price the trade got, price impact included; null where none",
    ),
    slippage: nullableDecimal(
      "The trade's slippage against the pool's price before it, a ratio: always null in this version (not computed; compare effective_price_tao with subnet-pools/history at block_number - 1)",
    ),
    source: enumName(
      shortNames(TransactionSource, "TRANSACTION_SOURCE_"),
      "Where the record came from: a chain event (substrate_event), an EVM transaction (evm_tx), or the chain's storage at the block and its parent (storage: a reward)",
    ),
    event_name: z.string().nullable().meta({
      description: "The runtime event it was read from, Pallet.Event (SubtensorModule.StakeAdded); null where none",
    }),
  }),
);

export const TransactionsSchema = component(
  "Transactions",
  z.object({
    _links: collectionLinks({
      balance: link("The account's balance (balance/latest)"),
      history: link("The account's balance history (balance/history)"),
    }),
    as_of: asOf(),
    address: subject(),
    page: page(),
    _embedded: embeddedItems(
      TransactionSchema,
      "The transactions, in chain order (block, then position in it), as ordered",
    ),
  }),
);
