import { callUnary } from "@platform/grpc";
import { defineRoute } from "@platform/http";
import { SubnetSort, type SubnetsServiceClient } from "@platform/proto/data/v1/subnets";
import { z } from "zod";
import { subnetsLatestExample } from "../examples.js";
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
import { renderSubnetsLatest } from "./renderSubnets.js";
import { SubnetsSchema } from "./subnetSchemas.js";

const LIMIT_DEFAULT = 256;
const LIMIT_MAX = 256;

const SORTS = {
  netuid: SubnetSort.SUBNET_SORT_NETUID,
  registered_at: SubnetSort.SUBNET_SORT_REGISTERED_AT,
  market_cap: SubnetSort.SUBNET_SORT_MARKET_CAP,
  tao_emission: SubnetSort.SUBNET_SORT_TAO_EMISSION,
  uid_count: SubnetSort.SUBNET_SORT_UID_COUNT,
} as const;

/** `GET /data/v1/subnets/latest`: subnet summaries with identity, owner, epoch timing, settings and pool. */
export function getSubnetsLatestRoute(subnets: SubnetsServiceClient) {
  return defineRoute({
    method: "get",
    path: "/data/v1/subnets/latest",
    operationId: "getSubnetsLatest",
    scope: DATA_SCOPE,
    query: z.object({
      netuid: netuidList(256, "Only these subnets (an unknown one is 404 NETUID_NOT_FOUND)").optional(),
      sort: enumQuery(SORTS, "Sort key; default netuid"),
      order: orderQuery("asc", "Sort direction"),
      ...pageQuery(LIMIT_DEFAULT, LIMIT_MAX),
      ...blockNumberShape(),
    }),
    docs: {
      summary: "Latest subnets",
      description: `Each subnet: name, symbol and identity, owner keys, registration block, mechanism, tempo and epoch blocks, UID counts, registration settings, toggles (transfers, emission, commit-reveal, liquid alpha, Yuma 3), hyperparameters, and a pool summary under _embedded.pool. u64 values that are not block numbers (difficulty, adjustment_alpha, weights_version, bonds_moving_average) are decimal strings. limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}.`,
      tags: ["Data: subnets"],
      success: halSuccess(
        SubnetsSchema,
        "One page of subnets",
        renderSubnetsLatest(subnetsLatestExample, { query: { limit: 1 }, limit: 1 }),
      ),
      errors: [INVALID_PARAMETER, INVALID_CURSOR, NETUID_NOT_FOUND, ...BLOCK_ERRORS],
    },
    async handle({ query, context }) {
      const page = pageRequest(query, LIMIT_DEFAULT);
      const answer = await callUnary(
        subnets,
        subnets.getSubnetsLatest,
        {
          netuids: query.netuid ?? [],
          sort: query.sort === undefined ? SubnetSort.SUBNET_SORT_UNSPECIFIED : SORTS[query.sort],
          order: sortOrderOf(query.order),
          page,
          at: blockSelectorOf(query.block_number),
        },
        metadataOf(context),
      );
      return halAnswer(
        renderSubnetsLatest(answer, {
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
