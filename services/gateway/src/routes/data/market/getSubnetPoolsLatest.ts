import { callUnary } from "@platform/grpc";
import { booleanQuery, defineRoute } from "@platform/http";
import { type MarketServiceClient, PoolSort } from "@platform/proto/data/v1/market";
import { z } from "zod";
import { poolsLatestExample } from "../examples.js";
import {
  BLOCK_ERRORS,
  DATA_SCOPE,
  flagText,
  halAnswer,
  halSuccess,
  INVALID_CURSOR,
  INVALID_PARAMETER,
  joinList,
  metadataOf,
  NETUID_NOT_FOUND,
} from "../shared/answer.js";
import {
  blockNumberShape,
  blockSelectorOf,
  enumQuery,
  netuidList,
  orderQuery,
  pageQuery,
  pageRequest,
  sortOrderOf,
} from "../shared/schemas.js";
import { SubnetPoolsSchema } from "./marketSchemas.js";
import { renderPoolsLatest } from "./renderMarket.js";

const LIMIT_DEFAULT = 256;
const LIMIT_MAX = 256;

const SORTS = {
  market_cap: PoolSort.POOL_SORT_MARKET_CAP,
  netuid: PoolSort.POOL_SORT_NETUID,
  price: PoolSort.POOL_SORT_PRICE,
  tao_in: PoolSort.POOL_SORT_TAO_IN,
  alpha_in: PoolSort.POOL_SORT_ALPHA_IN,
  alpha_out: PoolSort.POOL_SORT_ALPHA_OUT,
  volume_24h: PoolSort.POOL_SORT_VOLUME_24H,
  price_change_24h: PoolSort.POOL_SORT_PRICE_CHANGE_24H,
} as const;

/** `GET /data/v1/subnet-pools/latest`: reserves, price, market cap and volume of each subnet pool. */
export function getSubnetPoolsLatestRoute(market: MarketServiceClient) {
  return defineRoute({
    method: "get",
    path: "/data/v1/subnet-pools/latest",
    operationId: "getSubnetPoolsLatest",
    scope: DATA_SCOPE,
    query: z.object({
      netuid: netuidList(256, "Only these subnets (an unknown one is 404 NETUID_NOT_FOUND)").optional(),
      include_root: booleanQuery("Include the root subnet (netuid 0); default false").optional(),
      sort: enumQuery(SORTS, "Sort key; default market_cap"),
      order: orderQuery("desc", "Sort direction"),
      ...pageQuery(LIMIT_DEFAULT, LIMIT_MAX),
      ...blockNumberShape(),
    }),
    docs: {
      summary: "Latest subnet pools",
      description: `Each subnet's pool: TAO and alpha reserves, alpha outstanding, spot price (getAlphaPrice / 1e18, TAO per alpha) beside the plain reserve ratio, EMA price, market cap (price x alpha issuance), liquidity (2 x tao_in, a convention), volumes and price changes. limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}.`,
      tags: ["Data: market"],
      success: halSuccess(
        SubnetPoolsSchema,
        "One page of pools",
        renderPoolsLatest(poolsLatestExample, { query: { limit: 1 }, limit: 1 }),
      ),
      errors: [INVALID_PARAMETER, INVALID_CURSOR, NETUID_NOT_FOUND, ...BLOCK_ERRORS],
    },
    async handle({ query, context }) {
      const page = pageRequest(query, LIMIT_DEFAULT);
      const answer = await callUnary(
        market,
        market.getSubnetPoolsLatest,
        {
          netuids: query.netuid ?? [],
          includeRoot: query.include_root ?? false,
          sort: query.sort === undefined ? PoolSort.POOL_SORT_UNSPECIFIED : SORTS[query.sort],
          order: sortOrderOf(query.order),
          page,
          at: blockSelectorOf(query.block_number),
        },
        metadataOf(context),
      );
      return halAnswer(
        renderPoolsLatest(answer, {
          query: {
            netuid: joinList(query.netuid),
            include_root: flagText(query.include_root),
            sort: query.sort,
            order: query.order,
            limit: query.limit,
            block_number: query.block_number,
          },
          cursor: query.cursor,
          limit: page.limit,
        }),
        query.block_number,
      );
    },
  });
}
