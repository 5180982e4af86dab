import { callUnary } from "@platform/grpc";
import { defineRoute } from "@platform/http";
import { EmissionSort, type MarketServiceClient } from "@platform/proto/data/v1/market";
import { z } from "zod";
import { emissionsLatestExample } from "../examples.js";
import {
  BLOCK_ERRORS,
  DATA_SCOPE,
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
import { SubnetEmissionsSchema } from "./marketSchemas.js";
import { renderEmissionsLatest } from "./renderMarket.js";

const LIMIT_DEFAULT = 256;
const LIMIT_MAX = 256;

const SORTS = {
  tao_emission: EmissionSort.EMISSION_SORT_TAO_EMISSION,
  netuid: EmissionSort.EMISSION_SORT_NETUID,
  alpha_out_emission: EmissionSort.EMISSION_SORT_ALPHA_OUT_EMISSION,
  share: EmissionSort.EMISSION_SORT_SHARE,
} as const;

/** `GET /data/v1/subnet-emissions/latest`: what each subnet received in the last block, and its split. */
export function getSubnetEmissionsLatestRoute(market: MarketServiceClient) {
  return defineRoute({
    method: "get",
    path: "/data/v1/subnet-emissions/latest",
    operationId: "getSubnetEmissionsLatest",
    scope: DATA_SCOPE,
    query: z.object({
      netuid: netuidList(256, "Only these subnets (an unknown one is 404 NETUID_NOT_FOUND)").optional(),
      sort: enumQuery(SORTS, "Sort key; default tao_emission"),
      order: orderQuery("desc", "Sort direction"),
      ...pageQuery(LIMIT_DEFAULT, LIMIT_MAX),
      ...blockNumberShape(),
    }),
    docs: {
      summary: "Latest subnet emissions",
      description: `Per subnet, the last block's TAO and alpha emission, its share of the block emission, the derived owner/miners/validators/root split of alpha out, the pending (undistributed) alpha, epoch timing and a per-day estimate. limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}.`,
      tags: ["Data: market"],
      success: halSuccess(
        SubnetEmissionsSchema,
        "One page of emissions",
        renderEmissionsLatest(emissionsLatestExample, { query: { limit: 1 }, limit: 1 }),
      ),
      errors: [INVALID_PARAMETER, INVALID_CURSOR, NETUID_NOT_FOUND, ...BLOCK_ERRORS],
    },
    async handle({ query, context }) {
      const page = pageRequest(query, LIMIT_DEFAULT);
      const answer = await callUnary(
        market,
        market.getSubnetEmissionsLatest,
        {
          netuids: query.netuid ?? [],
          sort: query.sort === undefined ? EmissionSort.EMISSION_SORT_UNSPECIFIED : SORTS[query.sort],
          order: sortOrderOf(query.order),
          page,
          at: blockSelectorOf(query.block_number),
        },
        metadataOf(context),
      );
      return halAnswer(
        renderEmissionsLatest(answer, {
          query: {
            netuid: joinList(query.netuid),
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
