import { callUnary } from "@platform/grpc";
import { defineRoute } from "@platform/http";
import { type AccountsServiceClient, Valuation } from "@platform/proto/data/v1/accounts";
import { z } from "zod";
import { ALICE, balanceLatestExample } from "../examples.js";
import {
  BLOCK_ERRORS,
  DATA_SCOPE,
  halAnswer,
  halSuccess,
  INVALID_ADDRESS,
  INVALID_PARAMETER,
  joinList,
  metadataOf,
  NETUID_NOT_FOUND,
} from "../shared/answer.js";
import { accountAddress, blockNumberShape, blockSelectorOf, enumQuery, netuidList } from "../shared/schemas.js";
import { BalanceLatestSchema } from "./accountSchemas.js";
import { renderBalanceLatest } from "./renderAccounts.js";

// Only spot: an unstake valuation needs each pool's swap simulated against reserves of the same
// block as the stake, which the read models do not hold together yet (data-query refuses it too).
const VALUATIONS = { spot: Valuation.VALUATION_SPOT } as const;

/** `GET /data/v1/accounts/{address}/balance/latest`: free, reserved, staked and total, with the staking positions. */
export function getBalanceLatestRoute(accounts: AccountsServiceClient) {
  return defineRoute({
    method: "get",
    path: "/data/v1/accounts/:address/balance/latest",
    operationId: "getAccountBalanceLatest",
    scope: DATA_SCOPE,
    params: z.object({ address: accountAddress("The account") }),
    query: z.object({
      valuation: enumQuery(
        VALUATIONS,
        "How staked alpha is valued in TAO: spot (alpha x pool price, the default and, for now, the only one)",
      ),
      netuid: netuidList(256, "Only list positions in these subnets (totals are not filtered)").optional(),
      ...blockNumberShape(),
    }),
    docs: {
      summary: "Latest balance of an account",
      description:
        "Free, reserved and frozen TAO, root stake, alpha stake valued in TAO, total (free + reserved + staked) and its USD value, with the staking positions embedded. Amounts are decimal strings in rao (1e-9 TAO) or nalpha (1e-9 alpha). An address with no activity answers zeros, not 404.",
      tags: ["Data: accounts"],
      success: halSuccess(
        BalanceLatestSchema,
        "The balance at as_of",
        renderBalanceLatest(balanceLatestExample, { address: ALICE.ss58, query: {} }),
      ),
      errors: [INVALID_ADDRESS, INVALID_PARAMETER, NETUID_NOT_FOUND, ...BLOCK_ERRORS],
    },
    async handle({ params, query, context }) {
      const answer = await callUnary(
        accounts,
        accounts.getBalanceLatest,
        {
          address: params.address,
          valuation: query.valuation === undefined ? Valuation.VALUATION_UNSPECIFIED : VALUATIONS[query.valuation],
          netuids: query.netuid ?? [],
          at: blockSelectorOf(query.block_number),
        },
        metadataOf(context),
      );
      return halAnswer(
        renderBalanceLatest(answer, {
          address: params.address,
          query: { valuation: query.valuation, netuid: joinList(query.netuid), block_number: query.block_number },
        }),
        query.block_number,
      );
    },
  });
}
