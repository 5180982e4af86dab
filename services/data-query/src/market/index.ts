import { type GrpcServiceRegistration, unaryHandler } from "@platform/grpc";
import type { HistoryDb } from "@platform/history";
import type { Logger } from "@platform/log";
import {
  type GetNetworkStatsHistoryRequest,
  type GetNetworkStatsHistoryResponse,
  type GetNetworkStatsLatestRequest,
  type GetNetworkStatsLatestResponse,
  type GetPriceHistoryRequest,
  type GetPriceHistoryResponse,
  type GetPriceLatestRequest,
  type GetPriceLatestResponse,
  type GetSubnetEmissionsHistoryRequest,
  type GetSubnetEmissionsHistoryResponse,
  type GetSubnetEmissionsLatestRequest,
  type GetSubnetEmissionsLatestResponse,
  type GetSubnetPoolsHistoryRequest,
  type GetSubnetPoolsHistoryResponse,
  type GetSubnetPoolsLatestRequest,
  type GetSubnetPoolsLatestResponse,
  type GetSwapEstimateRequest,
  type GetSwapEstimateResponse,
  MarketServiceService,
} from "@platform/proto/data/v1/market";
import type { Redis } from "@platform/store";
import { getSubnetEmissionsLatest } from "./emissions.js";
import { getSubnetEmissionsHistory } from "./emissionsHistory.js";
import { getSubnetPoolsHistory } from "./poolHistory.js";
import { getSubnetPoolsLatest } from "./pools.js";
import { getPriceHistory, getPriceLatest } from "./price.js";
import { getNetworkStatsLatest } from "./stats.js";
import { getNetworkStatsHistory } from "./statsHistory.js";
import { getSwapEstimate } from "./swapEstimate.js";

/**
 * MarketService over the projector's market read model (libs/read-models market.ts), and the
 * history database when there is one (reads at an older block, histories older than Redis' window).
 */
export function marketGrpcService(deps: {
  redis: Redis;
  log: Logger;
  /** The history database: reads at a block older than the newest points Redis keeps. */
  history?: HistoryDb | undefined;
}): GrpcServiceRegistration {
  const { redis, log, history } = deps;
  return {
    name: "platform.data.v1.MarketService",
    definition: MarketServiceService,
    implementation: {
      getPriceLatest: unaryHandler<GetPriceLatestRequest, GetPriceLatestResponse>(log, "GetPriceLatest", (request) =>
        getPriceLatest(redis, request, history),
      ),
      getPriceHistory: unaryHandler<GetPriceHistoryRequest, GetPriceHistoryResponse>(
        log,
        "GetPriceHistory",
        (request) => getPriceHistory(redis, request),
      ),
      getNetworkStatsLatest: unaryHandler<GetNetworkStatsLatestRequest, GetNetworkStatsLatestResponse>(
        log,
        "GetNetworkStatsLatest",
        (request) => getNetworkStatsLatest(redis, request, history),
      ),
      getSubnetPoolsLatest: unaryHandler<GetSubnetPoolsLatestRequest, GetSubnetPoolsLatestResponse>(
        log,
        "GetSubnetPoolsLatest",
        (request) => getSubnetPoolsLatest(redis, request, history),
      ),
      getSubnetPoolsHistory: unaryHandler<GetSubnetPoolsHistoryRequest, GetSubnetPoolsHistoryResponse>(
        log,
        "GetSubnetPoolsHistory",
        (request) => getSubnetPoolsHistory(redis, request),
      ),
      getSubnetEmissionsLatest: unaryHandler<GetSubnetEmissionsLatestRequest, GetSubnetEmissionsLatestResponse>(
        log,
        "GetSubnetEmissionsLatest",
        (request) => getSubnetEmissionsLatest(redis, request, history),
      ),
      getNetworkStatsHistory: unaryHandler<GetNetworkStatsHistoryRequest, GetNetworkStatsHistoryResponse>(
        log,
        "GetNetworkStatsHistory",
        (request) => getNetworkStatsHistory(redis, request, history),
      ),
      getSubnetEmissionsHistory: unaryHandler<GetSubnetEmissionsHistoryRequest, GetSubnetEmissionsHistoryResponse>(
        log,
        "GetSubnetEmissionsHistory",
        (request) => getSubnetEmissionsHistory(redis, request, history),
      ),
      getSwapEstimate: unaryHandler<GetSwapEstimateRequest, GetSwapEstimateResponse>(
        log,
        "GetSwapEstimate",
        (request) => getSwapEstimate(redis, request, history),
      ),
    },
  };
}
