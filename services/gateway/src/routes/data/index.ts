import type { AnyRoute } from "@platform/http";
import type { AccountsServiceClient } from "@platform/proto/data/v1/accounts";
import type { MarketServiceClient } from "@platform/proto/data/v1/market";
import type { SubnetsServiceClient } from "@platform/proto/data/v1/subnets";
import { getBalanceHistoryRoute } from "./accounts/getBalanceHistory.js";
import { getBalanceLatestRoute } from "./accounts/getBalanceLatest.js";
import { listTransactionsRoute } from "./accounts/listTransactions.js";
import { getNetworkStatsRoute } from "./market/getNetworkStats.js";
import { getNetworkStatsHistoryRoute } from "./market/getNetworkStatsHistory.js";
import { getPriceHistoryRoute } from "./market/getPriceHistory.js";
import { getPriceLatestRoute } from "./market/getPriceLatest.js";
import { getSubnetEmissionsHistoryRoute } from "./market/getSubnetEmissionsHistory.js";
import { getSubnetEmissionsLatestRoute } from "./market/getSubnetEmissionsLatest.js";
import { getSubnetPoolsHistoryRoute } from "./market/getSubnetPoolsHistory.js";
import { getSubnetPoolsLatestRoute } from "./market/getSubnetPoolsLatest.js";
import { getSwapEstimateRoute } from "./market/getSwapEstimate.js";
import { dataRead, readAboutAccount, readFrom } from "./shared/conditional.js";
import { getHoldersTopRoute } from "./subnets/getHoldersTop.js";
import { getNeuronsLatestRoute } from "./subnets/getNeuronsLatest.js";
import { getSubnetsHistoryRoute } from "./subnets/getSubnetsHistory.js";
import { getSubnetsLatestRoute } from "./subnets/getSubnetsLatest.js";
import { getValidatorsLatestRoute } from "./subnets/getValidatorsLatest.js";

/**
 * The Data API routes (`/data/v1`, scope data:read): the spec's twelve in its order, with the
 * history routes of the latest-only views (issue 41) after their latest routes. Each is a
 * conditional read (shared/conditional.ts) that depends on the read models data-query reads for
 * it: accounts answers on the account's entries (balances also on the market's prices), market
 * answers on the market projection (with the subnets projection's subnet snapshots where they show
 * them), subnet answers on the subnets projection alone.
 */
export function dataRoutes(backends: {
  accounts: AccountsServiceClient;
  market: MarketServiceClient;
  subnets: SubnetsServiceClient;
}): AnyRoute[] {
  return [
    dataRead(getBalanceLatestRoute(backends.accounts), readAboutAccount("market")),
    dataRead(getBalanceHistoryRoute(backends.accounts), readAboutAccount("market")),
    dataRead(listTransactionsRoute(backends.accounts), readAboutAccount()),
    dataRead(getPriceLatestRoute(backends.market), readFrom("market")),
    dataRead(getPriceHistoryRoute(backends.market), readFrom("market")),
    dataRead(getNetworkStatsRoute(backends.market), readFrom("market", "subnets")),
    dataRead(getNetworkStatsHistoryRoute(backends.market), readFrom("market")),
    dataRead(getSubnetPoolsLatestRoute(backends.market), readFrom("market", "subnets")),
    dataRead(getSubnetPoolsHistoryRoute(backends.market), readFrom("market")),
    dataRead(getSwapEstimateRoute(backends.market), readFrom("market")),
    dataRead(getSubnetEmissionsLatestRoute(backends.market), readFrom("market", "subnets")),
    dataRead(getSubnetEmissionsHistoryRoute(backends.market), readFrom("market")),
    dataRead(getSubnetsLatestRoute(backends.subnets), readFrom("subnets")),
    dataRead(getSubnetsHistoryRoute(backends.subnets), readFrom("subnets")),
    dataRead(getValidatorsLatestRoute(backends.subnets), readFrom("subnets")),
    dataRead(getHoldersTopRoute(backends.subnets), readFrom("subnets")),
    dataRead(getNeuronsLatestRoute(backends.subnets), readFrom("subnets")),
  ];
}
