import { type GrpcServiceRegistration, unaryHandler } from "@platform/grpc";
import type { HistoryDb } from "@platform/history";
import type { Logger } from "@platform/log";
import {
  type GetNetworkStatsLatestRequest,
  type GetNetworkStatsLatestResponse,
  type GetPriceHistoryRequest,
  type GetPriceHistoryResponse,
  type GetPriceLatestRequest,
  type GetPriceLatestResponse,
  type GetSubnetEmissionsLatestRequest,
  type GetSubnetEmissionsLatestResponse,
  type GetSubnetPoolsHistoryRequest,
  type GetSubnetPoolsHistoryResponse,
  type GetSubnetPoolsLatestRequest,
  type GetSubnetPoolsLatestResponse,
  MarketServiceService,
} from "@platform/proto/data/v1/market";
import type { Redis } from "@platform/store";
import { getSubnetEmissionsLatest } from "./emissions.js";
import { getSubnetPoolsHistory } from "./poolHistory.js";
import { getSubnetPoolsLatest } from "./pools.js";
import { getPriceHistory, getPriceLatest } from "./price.js";
import { getNetworkStatsLatest } from "./stats.js";

/** MarketService over the projector's market read model (libs/read-models market.ts). */
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
        getPriceLatest(redis, request),
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
    },
  };
}
