import { callUnary } from "@platform/grpc";
import { type AccountsServiceClient, Valuation } from "@platform/proto/data/v1/accounts";
import { z } from "zod";
import { ALICE, balanceLatestExample } from "../examples.js";
import { INVALID_ADDRESS, INVALID_PARAMETER, joinList, NETUID_NOT_FOUND } from "../shared/answer.js";
import { latestRoute } from "../shared/latestRoute.js";
import { accountAddress, enumQuery, netuidList } from "../shared/schemas.js";
import { BalanceLatestSchema } from "./accountSchemas.js";
import { renderBalanceLatest } from "./renderAccounts.js";

// Only spot: an unstake valuation needs each pool's swap simulated against reserves of the same
// block as the stake, which the read models do not hold together yet (data-query refuses it too).
const VALUATIONS = { spot: Valuation.VALUATION_SPOT } as const;

/** `GET /data/v1/accounts/{address}/balance/latest`: free, reserved, staked and total, with the staking positions. */
export function getBalanceLatestRoute(accounts: AccountsServiceClient) {
  return latestRoute({
    path: "/data/v1/accounts/:address/balance/latest",
    operationId: "getAccountBalanceLatest",
    summary: "Latest balance of an account",
    description:
      "Free, reserved and frozen TAO, root stake, alpha stake valued in TAO, total (free + reserved + staked) and its USD value, with the staking positions embedded. Amounts are decimal strings in rao (1e-9 TAO) or nalpha (1e-9 alpha). An address with no activity answers zeros, not 404.",
    tags: ["Data: accounts"],
    params: z.object({ address: accountAddress("The account") }),
    own: {
      valuation: enumQuery(
        VALUATIONS,
        "How staked alpha is valued in TAO: spot (alpha x pool price, the default and, for now, the only one)",
      ),
      netuid: netuidList(256, "Only list positions in these subnets (totals are not filtered)").optional(),
    },
    success: {
      schema: BalanceLatestSchema,
      description: "The balance at as_of",
      example: renderBalanceLatest(balanceLatestExample, { address: ALICE.ss58, query: {} }),
    },
    errors: [INVALID_ADDRESS, INVALID_PARAMETER, NETUID_NOT_FOUND],
    call: ({ query, params, at }, metadata) =>
      callUnary(
        accounts,
        accounts.getBalanceLatest,
        {
          address: params.address,
          valuation: query.valuation === undefined ? Valuation.VALUATION_UNSPECIFIED : VALUATIONS[query.valuation],
          netuids: query.netuid ?? [],
          at,
        },
        metadata,
      ),
    linkQuery: (query) => ({ valuation: query.valuation, netuid: joinList(query.netuid) }),
    render: (answer, links, { params }) => renderBalanceLatest(answer, { address: params.address, query: links }),
  });
}
