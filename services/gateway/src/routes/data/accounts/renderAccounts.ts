import { halCollection, halResource, hrefWithQuery } from "@platform/http";
import type { AccountId } from "@platform/proto/common/v1/network";
import {
  type BalancePoint,
  type GetBalanceHistoryResponse,
  type GetBalanceLatestResponse,
  type ListTransactionsResponse,
  type PositionValue,
  type Transaction,
  Valuation,
} from "@platform/proto/data/v1/accounts";
import type { z } from "zod";
import {
  accountBalanceHref,
  accountHistoryHref,
  accountTransactionsHref,
  coinPriceHref,
  poolsHref,
  subnetsHref,
  validatorsHref,
} from "../shared/links.js";
import type { LinkQuery } from "../shared/render.js";
import {
  directionName,
  integer,
  intervalName,
  orNull,
  pageOf,
  renderAccount,
  renderAsOf,
  renderSubject,
  transactionSourceName,
  transactionTypeName,
} from "../shared/render.js";
import type {
  BalanceHistorySchema,
  BalanceLatestSchema,
  BalancePointSchema,
  PositionSchema,
  TransactionSchema,
  TransactionsSchema,
} from "./accountSchemas.js";

/**
 * The accounts group. `address` is the account as the caller wrote it in the path: the links of one
 * answer keep that spelling, so an account asked for by its EVM address stays that way while
 * the caller browses its history and transactions.
 */

export function valuationName(valuation: Valuation): "spot" | "unstake" | null {
  if (valuation === Valuation.VALUATION_SPOT) return "spot";
  if (valuation === Valuation.VALUATION_UNSTAKE) return "unstake";
  return null;
}

function accountLinks(address: string) {
  return {
    balance: { href: accountBalanceHref(address) },
    history: { href: accountHistoryHref(address) },
    transactions: { href: accountTransactionsHref(address) },
  };
}

function renderPosition(position: PositionValue): z.output<typeof PositionSchema> {
  return halResource(
    {
      self: { href: poolsHref(position.netuid) },
      subnet: { href: subnetsHref(position.netuid) },
      validators: { href: validatorsHref(position.netuid) },
      ...(position.hotkey?.ss58 ? { hotkey: { href: accountBalanceHref(position.hotkey.ss58) } } : {}),
    },
    {
      netuid: position.netuid,
      hotkey: renderAccount(position.hotkey),
      hotkey_name: orNull(position.hotkeyName),
      stake_nalpha: position.stakeNalpha,
      price_tao: position.priceTao,
      value_rao: position.valueRao,
    },
  );
}

export function renderBalanceLatest(
  answer: GetBalanceLatestResponse,
  request: { address: string; query: LinkQuery },
): z.output<typeof BalanceLatestSchema> {
  const { balance: _self, ...related } = accountLinks(request.address);
  return halResource(
    {
      self: { href: hrefWithQuery(accountBalanceHref(request.address), request.query) },
      ...related,
      "coin-price": { href: coinPriceHref() },
    },
    {
      as_of: renderAsOf(answer.asOf),
      address: renderSubject(answer.address),
      balance_free_rao: answer.balanceFreeRao,
      balance_reserved_rao: answer.balanceReservedRao,
      balance_frozen_rao: answer.balanceFrozenRao,
      balance_staked_rao: answer.balanceStakedRao,
      balance_staked_root_rao: answer.balanceStakedRootRao,
      balance_staked_alpha_value_rao: answer.balanceStakedAlphaValueRao,
      balance_total_rao: answer.balanceTotalRao,
      valuation: valuationName(answer.valuation),
      price_usd: orNull(answer.priceUsd),
      balance_total_usd: orNull(answer.balanceTotalUsd),
      positions_count: answer.positionsCount,
    },
    { positions: answer.positions.map(renderPosition) },
  );
}

function renderBalancePoint(point: BalancePoint): z.output<typeof BalancePointSchema> {
  return {
    bucket_start: point.bucketStart,
    block_number: integer(point.blockNumber),
    timestamp: point.timestamp,
    balance_free_rao: point.balanceFreeRao,
    balance_reserved_rao: point.balanceReservedRao,
    balance_staked_rao: point.balanceStakedRao,
    balance_staked_root_rao: point.balanceStakedRootRao,
    balance_staked_alpha_value_rao: point.balanceStakedAlphaValueRao,
    balance_total_rao: point.balanceTotalRao,
    price_usd: orNull(point.priceUsd),
    balance_total_usd: orNull(point.balanceTotalUsd),
    change_total_rao: point.changeTotalRao,
    positions: point.positions.map((position) => ({
      netuid: position.netuid,
      alpha_nalpha: position.alphaNalpha,
      reward_alpha_nalpha: position.rewardAlphaNalpha || "0",
    })),
    reward_rao: point.rewardRao || "0",
    reward_blocks: point.rewardBlocks,
  };
}

export function renderBalanceHistory(
  answer: GetBalanceHistoryResponse,
  request: { address: string; query: LinkQuery; cursor?: string | undefined; limit: number },
): z.output<typeof BalanceHistorySchema> {
  const { history: _self, ...related } = accountLinks(request.address);
  return halCollection({
    path: accountHistoryHref(request.address),
    query: request.query,
    cursor: request.cursor,
    page: pageOf(answer.page, request.limit),
    links: { latest: related.balance, transactions: related.transactions },
    state: {
      as_of: renderAsOf(answer.asOf),
      address: renderSubject(answer.address),
      interval: intervalName(answer.interval),
    },
    items: answer.points.map(renderBalancePoint),
  });
}

const sameAccount = (left: AccountId | undefined, right: AccountId | undefined) =>
  left !== undefined && right !== undefined && left.publicKey === right.publicKey;

/** The other side of a transaction, seen from the queried account. */
function counterpartyOf(transaction: Transaction, subject: AccountId | undefined): AccountId | undefined {
  if (sameAccount(transaction.from, subject)) return sameAccount(transaction.to, subject) ? undefined : transaction.to;
  return transaction.from;
}

export function renderTransaction(
  transaction: Transaction,
  subject: AccountId | undefined,
): z.output<typeof TransactionSchema> {
  const counterparty = counterpartyOf(transaction, subject);
  return {
    _links: {
      ...(transaction.netuid === undefined ? {} : { subnet: { href: subnetsHref(transaction.netuid) } }),
      ...(counterparty?.ss58 ? { counterparty: { href: accountBalanceHref(counterparty.ss58) } } : {}),
    },
    id: transaction.id,
    type: transactionTypeName(transaction.type),
    direction: directionName(transaction.direction),
    success: transaction.success,
    block_number: integer(transaction.blockNumber),
    block_hash: orNull(transaction.blockHash),
    timestamp: transaction.timestamp,
    extrinsic_id: orNull(transaction.extrinsicId),
    extrinsic_hash: orNull(transaction.extrinsicHash),
    evm_tx_hash: orNull(transaction.evmTxHash),
    from: renderAccount(transaction.from),
    to: renderAccount(transaction.to),
    amount_rao: orNull(transaction.amountRao),
    fee_rao: orNull(transaction.feeRao),
    netuid: orNull(transaction.netuid),
    hotkey: renderAccount(transaction.hotkey),
    alpha_nalpha: orNull(transaction.alphaNalpha),
    effective_price_tao: orNull(transaction.effectivePriceTao),
    slippage: orNull(transaction.slippage),
    source: transactionSourceName(transaction.source),
    event_name: orNull(transaction.eventName),
  };
}

export function renderTransactions(
  answer: ListTransactionsResponse,
  request: { address: string; query: LinkQuery; cursor?: string | undefined; limit: number },
): z.output<typeof TransactionsSchema> {
  const { transactions: _self, ...related } = accountLinks(request.address);
  return halCollection({
    path: accountTransactionsHref(request.address),
    query: request.query,
    cursor: request.cursor,
    page: pageOf(answer.page, request.limit),
    links: related,
    state: { as_of: renderAsOf(answer.asOf), address: renderSubject(answer.address) },
    items: answer.transactions.map((transaction) => renderTransaction(transaction, answer.address)),
  });
}
