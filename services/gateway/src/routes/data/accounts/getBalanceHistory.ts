import { callUnary } from "@platform/grpc";
import { defineRoute } from "@platform/http";
import type { AccountsServiceClient } from "@platform/proto/data/v1/accounts";
import { z } from "zod";
import { ALICE, balanceHistoryExample } from "../examples.js";
import {
  DATA_SCOPE,
  halAnswer,
  halSuccess,
  INVALID_ADDRESS,
  INVALID_CURSOR,
  INVALID_PARAMETER,
  metadataOf,
  WINDOW_TOO_LARGE,
} from "../shared/answer.js";
import {
  accountAddress,
  intervalQuery,
  orderQuery,
  pageQuery,
  pageRequest,
  sortOrderOf,
  timeWindow,
  windowedQuery,
  windowLinkQuery,
  windowQuery,
} from "../shared/schemas.js";
import { BalanceHistorySchema } from "./accountSchemas.js";
import { renderBalanceHistory } from "./renderAccounts.js";

const LIMIT_DEFAULT = 100;
const LIMIT_MAX = 1_000;

/** `GET /data/v1/accounts/{address}/balance/history`: the balance at the end of each bucket of a window. */
export function getBalanceHistoryRoute(accounts: AccountsServiceClient) {
  return defineRoute({
    method: "get",
    path: "/data/v1/accounts/:address/balance/history",
    operationId: "getAccountBalanceHistory",
    scope: DATA_SCOPE,
    cost: 2,
    params: z.object({ address: accountAddress("The account") }),
    query: windowedQuery({
      ...windowQuery("end - 30 days"),
      interval: intervalQuery(["1h", "1d", "1w"], "1d", "Window at most 31 days with 1h, 5 years with 1d and 1w."),
      ...pageQuery(LIMIT_DEFAULT, LIMIT_MAX),
      order: orderQuery("desc", "Order of the points by time"),
    }),
    docs: {
      summary: "Balance history of an account",
      description: `One point per bucket (the balance at the last block of the bucket), newest first by default. The window is [start, end) in time; at most 31 days with interval=1h and 5 years with 1d or 1w (400 WINDOW_TOO_LARGE beyond). limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}; follow _links.next for the next page.`,
      tags: ["Data: accounts"],
      success: halSuccess(
        BalanceHistorySchema,
        "One page of balance points",
        renderBalanceHistory(balanceHistoryExample, {
          address: ALICE.ss58,
          query: { interval: "1d", limit: 1 },
          limit: 1,
        }),
      ),
      errors: [INVALID_ADDRESS, INVALID_PARAMETER, INVALID_CURSOR, WINDOW_TOO_LARGE],
    },
    async handle({ params, query, context }) {
      const page = pageRequest(query, LIMIT_DEFAULT);
      const answer = await callUnary(
        accounts,
        accounts.getBalanceHistory,
        { address: params.address, window: timeWindow(query), page, order: sortOrderOf(query.order) },
        metadataOf(context),
      );
      return halAnswer(
        renderBalanceHistory(answer, {
          address: params.address,
          query: { ...windowLinkQuery(query), order: query.order, limit: query.limit },
          cursor: query.cursor,
          limit: page.limit,
        }),
      );
    },
  });
}
