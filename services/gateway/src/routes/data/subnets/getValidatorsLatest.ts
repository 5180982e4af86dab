import { callUnary } from "@platform/grpc";
import { booleanQuery, defineRoute } from "@platform/http";
import { type SubnetsServiceClient, ValidatorSort } from "@platform/proto/data/v1/subnets";
import { z } from "zod";
import { validatorsLatestExample } from "../examples.js";
import {
  BLOCK_ERRORS,
  DATA_SCOPE,
  flagText,
  halAnswer,
  halSuccess,
  INVALID_CURSOR,
  INVALID_PARAMETER,
  metadataOf,
  NETUID_NOT_FOUND,
} from "../shared/answer.js";
import {
  blockNumberShape,
  blockSelectorOf,
  enumQuery,
  netuidPath,
  orderQuery,
  pageQuery,
  pageRequest,
  sortOrderOf,
} from "../shared/schemas.js";
import { renderValidatorsLatest } from "./renderSubnets.js";
import { ValidatorsSchema } from "./subnetSchemas.js";

const LIMIT_DEFAULT = 64;
const LIMIT_MAX = 256;

const SORTS = {
  stake: ValidatorSort.VALIDATOR_SORT_STAKE,
  alpha_stake: ValidatorSort.VALIDATOR_SORT_ALPHA_STAKE,
  root_stake: ValidatorSort.VALIDATOR_SORT_ROOT_STAKE,
  dividends: ValidatorSort.VALIDATOR_SORT_DIVIDENDS,
  vtrust: ValidatorSort.VALIDATOR_SORT_VTRUST,
  take: ValidatorSort.VALIDATOR_SORT_TAKE,
  uid: ValidatorSort.VALIDATOR_SORT_UID,
  emission: ValidatorSort.VALIDATOR_SORT_EMISSION,
} as const;

/** `GET /data/v1/subnets/{netuid}/validators/latest`: validators with identity, stake, permit and performance. */
export function getValidatorsLatestRoute(subnets: SubnetsServiceClient) {
  return defineRoute({
    method: "get",
    path: "/data/v1/subnets/:netuid/validators/latest",
    operationId: "getSubnetValidatorsLatest",
    scope: DATA_SCOPE,
    params: z.object({ netuid: netuidPath() }),
    query: z.object({
      permit_only: booleanQuery(
        "Only UIDs with a validator permit (default true); false lists every UID with any stake",
      ).optional(),
      sort: enumQuery(SORTS, "Sort key; default stake"),
      order: orderQuery("desc", "Sort direction"),
      ...pageQuery(LIMIT_DEFAULT, LIMIT_MAX),
      ...blockNumberShape(),
    }),
    docs: {
      summary: "Latest validators of a subnet",
      description: `Each validator UID: hotkey, coldkey and its identity, permit, take, alpha and root stake and their TAO value, dividends, vtrust, incentive, consensus (decimals in [0, 1]), emission per epoch and weight-update recency. An unknown netuid is 404 NETUID_NOT_FOUND. limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}.`,
      tags: ["Data: subnets"],
      success: halSuccess(
        ValidatorsSchema,
        "One page of validators",
        renderValidatorsLatest(validatorsLatestExample, { netuid: 64, query: { limit: 1 }, limit: 1 }),
      ),
      errors: [INVALID_PARAMETER, INVALID_CURSOR, NETUID_NOT_FOUND, ...BLOCK_ERRORS],
    },
    async handle({ params, query, context }) {
      const page = pageRequest(query, LIMIT_DEFAULT);
      const answer = await callUnary(
        subnets,
        subnets.getValidatorsLatest,
        {
          netuid: params.netuid,
          includeWithoutPermit: query.permit_only === false,
          sort: query.sort === undefined ? ValidatorSort.VALIDATOR_SORT_UNSPECIFIED : SORTS[query.sort],
          order: sortOrderOf(query.order),
          page,
          at: blockSelectorOf(query.block_number),
        },
        metadataOf(context),
      );
      return halAnswer(
        renderValidatorsLatest(answer, {
          netuid: params.netuid,
          query: {
            permit_only: flagText(query.permit_only),
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
