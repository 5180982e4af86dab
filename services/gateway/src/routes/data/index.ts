import type { AnyRoute } from "@platform/http";
import type { AccountsServiceClient } from "@platform/proto/data/v1/accounts";
import type { MarketServiceClient } from "@platform/proto/data/v1/market";
import type { SubnetsServiceClient } from "@platform/proto/data/v1/subnets";
import { getBalanceHistoryRoute } from "./accounts/getBalanceHistory.js";
import { getBalanceLatestRoute } from "./accounts/getBalanceLatest.js";
import { listTransactionsRoute } from "./accounts/listTransactions.js";
import { getNetworkStatsRoute } from "./market/getNetworkStats.js";
import { getPriceHistoryRoute } from "./market/getPriceHistory.js";
import { getPriceLatestRoute } from "./market/getPriceLatest.js";
import { getSubnetEmissionsLatestRoute } from "./market/getSubnetEmissionsLatest.js";
import { getSubnetPoolsHistoryRoute } from "./market/getSubnetPoolsHistory.js";
import { getSubnetPoolsLatestRoute } from "./market/getSubnetPoolsLatest.js";
import { getHoldersTopRoute } from "./subnets/getHoldersTop.js";
import { getSubnetsLatestRoute } from "./subnets/getSubnetsLatest.js";
import { getValidatorsLatestRoute } from "./subnets/getValidatorsLatest.js";

/** The twelve Data API routes (`/data/v1`, scope data:read), in the order the spec lists them. */
export function dataRoutes(backends: {
  accounts: AccountsServiceClient;
  market: MarketServiceClient;
  subnets: SubnetsServiceClient;
}): AnyRoute[] {
  return [
    getBalanceLatestRoute(backends.accounts),
    getBalanceHistoryRoute(backends.accounts),
    listTransactionsRoute(backends.accounts),
    getPriceLatestRoute(backends.market),
    getPriceHistoryRoute(backends.market),
    getNetworkStatsRoute(backends.market),
    getSubnetPoolsLatestRoute(backends.market),
    getSubnetPoolsHistoryRoute(backends.market),
    getSubnetEmissionsLatestRoute(backends.market),
    getSubnetsLatestRoute(backends.subnets),
    getValidatorsLatestRoute(backends.subnets),
    getHoldersTopRoute(backends.subnets),
  ];
}
