import { callUnary } from "@platform/grpc";
import { defineRoute, listQuery, nameItem } from "@platform/http";
import { Direction, TransactionType } from "@platform/proto/common/v1/network";
import type { AccountsServiceClient } from "@platform/proto/data/v1/accounts";
import { z } from "zod";
import { ALICE, transactionsExample } from "../examples.js";
import {
  DATA_SCOPE,
  halAnswer,
  halSuccess,
  INVALID_ADDRESS,
  INVALID_CURSOR,
  INVALID_PARAMETER,
  joinList,
  metadataOf,
  WINDOW_TOO_LARGE,
} from "../shared/answer.js";
import {
  accountAddress,
  enumQuery,
  netuidList,
  orderQuery,
  pageQuery,
  pageRequest,
  sortOrderOf,
  timeWindow,
  windowedQuery,
  windowLinkQuery,
  windowQuery,
} from "../shared/schemas.js";
import { TransactionsSchema } from "./accountSchemas.js";
import { renderTransactions } from "./renderAccounts.js";

const LIMIT_DEFAULT = 50;
const LIMIT_MAX = 200;

const TYPES = {
  transfer: TransactionType.TRANSACTION_TYPE_TRANSFER,
  stake_add: TransactionType.TRANSACTION_TYPE_STAKE_ADD,
  stake_remove: TransactionType.TRANSACTION_TYPE_STAKE_REMOVE,
  stake_move: TransactionType.TRANSACTION_TYPE_STAKE_MOVE,
  stake_transfer: TransactionType.TRANSACTION_TYPE_STAKE_TRANSFER,
  stake_swap: TransactionType.TRANSACTION_TYPE_STAKE_SWAP,
  alpha_burn: TransactionType.TRANSACTION_TYPE_ALPHA_BURN,
  evm_tx: TransactionType.TRANSACTION_TYPE_EVM_TX,
  neuron_register: TransactionType.TRANSACTION_TYPE_NEURON_REGISTER,
  subnet_register: TransactionType.TRANSACTION_TYPE_SUBNET_REGISTER,
  other: TransactionType.TRANSACTION_TYPE_OTHER,
  reward: TransactionType.TRANSACTION_TYPE_REWARD,
} as const;
type TypeName = keyof typeof TYPES;
const TYPE_NAMES = Object.keys(TYPES) as TypeName[];

const DIRECTIONS = {
  in: Direction.DIRECTION_IN,
  out: Direction.DIRECTION_OUT,
  any: Direction.DIRECTION_UNSPECIFIED,
} as const;

const raoAmount = (description: string) =>
  z
    .string()
    .regex(/^[0-9]{1,30}$/, { error: "must be a decimal string of rao" })
    .meta({ description, examples: ["1000000000"] });

/** `GET /data/v1/accounts/{address}/transactions`: the account's activity, newest first, with filters. */
export function listTransactionsRoute(accounts: AccountsServiceClient) {
  return defineRoute({
    method: "get",
    path: "/data/v1/accounts/:address/transactions",
    operationId: "listAccountTransactions",
    scope: DATA_SCOPE,
    cost: 2,
    params: z.object({ address: accountAddress("The account") }),
    query: windowedQuery(
      {
        type: listQuery(nameItem(TYPE_NAMES), {
          max: TYPE_NAMES.length,
          description: `Only these kinds: ${TYPE_NAMES.join(", ")}`,
        }).optional(),
        direction: enumQuery(DIRECTIONS, "Direction of value relative to the account; default any"),
        netuid: netuidList(256, "Only stake operations in these subnets").optional(),
        counterparty: accountAddress("Only transactions with this account").optional(),
        min_amount_rao: raoAmount("Smallest amount listed, rao").optional(),
        max_amount_rao: raoAmount("Largest amount listed, rao").optional(),
        ...windowQuery("end - 90 days"),
        ...pageQuery(LIMIT_DEFAULT, LIMIT_MAX),
        order: orderQuery("desc", "Order by block, then position in the block"),
      },
      [
        {
          kind: "ordered",
          first: "min_amount_rao",
          second: "max_amount_rao",
          strict: false,
          compare: "decimal",
          message: "must not be below min_amount_rao",
        },
      ],
    ),
    docs: {
      summary: "Transactions of an account",
      description: `Transfers, stake operations, registrations and EVM transactions of the account, with effective price and slippage on stake operations, and its staking income: one \`reward\` entry per position and epoch block that paid it (the position's alpha change at the block less that block's stakes and unstakes on it, with its TAO value at the block's pool price; no event names it, it is derived from the chain's storage at the block and its parent). Default window: the last 90 days; at most 366 days (400 WINDOW_TOO_LARGE). Pages are stable while new blocks arrive: following _links.next yields each transaction once. limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}.`,
      tags: ["Data: accounts"],
      success: halSuccess(
        TransactionsSchema,
        "One page of transactions",
        renderTransactions(transactionsExample, { address: ALICE.ss58, query: { limit: 3 }, limit: 3 }),
      ),
      errors: [INVALID_ADDRESS, INVALID_PARAMETER, INVALID_CURSOR, WINDOW_TOO_LARGE],
    },
    async handle({ params, query, context }) {
      const page = pageRequest(query, LIMIT_DEFAULT);
      const answer = await callUnary(
        accounts,
        accounts.listTransactions,
        {
          address: params.address,
          types: (query.type ?? []).map((name) => TYPES[name]),
          direction: query.direction === undefined ? Direction.DIRECTION_UNSPECIFIED : DIRECTIONS[query.direction],
          netuids: query.netuid ?? [],
          counterparty: query.counterparty,
          minAmountRao: query.min_amount_rao,
          maxAmountRao: query.max_amount_rao,
          window: timeWindow(query),
          page,
          order: sortOrderOf(query.order),
        },
        metadataOf(context),
      );
      return halAnswer(
        renderTransactions(answer, {
          address: params.address,
          query: {
            type: joinList(query.type),
            direction: query.direction,
            netuid: joinList(query.netuid),
            counterparty: query.counterparty,
            min_amount_rao: query.min_amount_rao,
            max_amount_rao: query.max_amount_rao,
            ...windowLinkQuery(query),
            order: query.order,
            limit: query.limit,
          },
          cursor: query.cursor,
          limit: page.limit,
        }),
      );
    },
  });
}
