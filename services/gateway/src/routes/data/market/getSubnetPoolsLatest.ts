import { callUnary } from "@platform/grpc";
import { booleanQuery } from "@platform/http";
import type { MarketServiceClient } from "@platform/proto/data/v1/market";
import { POOL_SORTS } from "@platform/proto/sorts";
import { poolsLatestExample } from "../examples.js";
import { flagText, joinList } from "../shared/answer.js";
import { latestListRoute, SUBNET_LIST } from "../shared/latestListRoute.js";
import { SubnetPoolsSchema } from "./marketSchemas.js";
import { renderPoolsLatest } from "./renderMarket.js";

/** `GET /data/v1/subnet-pools/latest`: reserves, price, market cap and volume of each subnet pool. */
export function getSubnetPoolsLatestRoute(market: MarketServiceClient) {
  return latestListRoute({
    path: "/data/v1/subnet-pools/latest",
    operationId: "getSubnetPoolsLatest",
    summary: "Latest subnet pools",
    description:
      "Each subnet's pool: TAO and alpha reserves, alpha outstanding, spot price (getAlphaPrice / 1e18, TAO per alpha) beside the plain reserve ratio, EMA price, market cap (price x alpha issuance), liquidity (2 x tao_in, a convention), volumes and price changes.",
    tags: ["Data: market"],
    own: {
      ...SUBNET_LIST.filter(),
      include_root: booleanQuery("Include the root subnet (netuid 0); default false").optional(),
    },
    sorts: POOL_SORTS,
    page: SUBNET_LIST.page,
    success: {
      schema: SubnetPoolsSchema,
      description: "One page of pools",
      example: poolsLatestExample,
    },
    call: ({ query, sort, order, page, at }, metadata) =>
      callUnary(
        market,
        market.getSubnetPoolsLatest,
        { netuids: query.netuid ?? [], includeRoot: query.include_root ?? false, sort, order, page, at },
        metadata,
      ),
    linkQuery: (query) => ({ netuid: joinList(query.netuid), include_root: flagText(query.include_root) }),
    render: (answer, view) => renderPoolsLatest(answer, view),
  });
}
