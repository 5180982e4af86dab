import { callUnary } from "@platform/grpc";
import type { AccountsServiceClient } from "@platform/proto/data/v1/accounts";
import { z } from "zod";
import { ALICE, balanceHistoryExample } from "../examples.js";
import { INVALID_ADDRESS, INVALID_CURSOR, INVALID_PARAMETER, WINDOW_TOO_LARGE } from "../shared/answer.js";
import { historyRoute } from "../shared/historyRoute.js";
import { accountAddress } from "../shared/schemas.js";
import { BalanceHistorySchema } from "./accountSchemas.js";
import { renderBalanceHistory } from "./renderAccounts.js";

const LIMIT_DEFAULT = 100;
const LIMIT_MAX = 1_000;

/** `GET /data/v1/accounts/{address}/balance/history`: the balance at the end of each bucket of a window. */
export function getBalanceHistoryRoute(accounts: AccountsServiceClient) {
  return historyRoute({
    path: "/data/v1/accounts/:address/balance/history",
    operationId: "getAccountBalanceHistory",
    summary: "Balance history of an account",
    description: `One point per bucket (the balance at the last block of the bucket), newest first by default. The window is [start, end) in time; at most 31 days with interval=1h and 5 years with 1d or 1w (400 WINDOW_TOO_LARGE beyond). limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}; follow _links.next for the next page.`,
    tags: ["Data: accounts"],
    params: z.object({ address: accountAddress("The account") }),
    own: {},
    window: {
      defaults: "end - 30 days",
      intervals: ["1h", "1d", "1w"],
      defaultInterval: "1d",
      limits: "Window at most 31 days with 1h, 5 years with 1d and 1w.",
    },
    page: { defaultLimit: LIMIT_DEFAULT, maxLimit: LIMIT_MAX },
    order: { default: "desc", what: "Order of the points by time" },
    success: {
      schema: BalanceHistorySchema,
      description: "One page of balance points",
      example: renderBalanceHistory(balanceHistoryExample, {
        address: ALICE.ss58,
        query: { interval: "1d", limit: 1 },
        limit: 1,
      }),
    },
    errors: [INVALID_ADDRESS, INVALID_PARAMETER, INVALID_CURSOR, WINDOW_TOO_LARGE],
    call: ({ params, window, page, order }, metadata) =>
      callUnary(accounts, accounts.getBalanceHistory, { address: params.address, window, page, order }, metadata),
    linkQuery: (_query, window) => window,
    render: (answer, view, params) => renderBalanceHistory(answer, { ...view, address: params.address }),
  });
}
