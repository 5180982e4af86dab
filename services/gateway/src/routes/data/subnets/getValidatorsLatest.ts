import { callUnary } from "@platform/grpc";
import { booleanQuery } from "@platform/http";
import type { SubnetsServiceClient } from "@platform/proto/data/v1/subnets";
import { VALIDATOR_SORTS } from "@platform/proto/sorts";
import { z } from "zod";
import { validatorsLatestExample } from "../examples.js";
import { flagText } from "../shared/answer.js";
import { latestListRoute } from "../shared/latestListRoute.js";
import { netuidPath } from "../shared/schemas.js";
import { renderValidatorsLatest } from "./renderSubnets.js";
import { ValidatorsSchema } from "./subnetSchemas.js";

/** `GET /data/v1/subnets/{netuid}/validators/latest`: validators with identity, stake, permit and performance. */
export function getValidatorsLatestRoute(subnets: SubnetsServiceClient) {
  return latestListRoute({
    path: "/data/v1/subnets/:netuid/validators/latest",
    operationId: "getSubnetValidatorsLatest",
    summary: "Latest validators of a subnet",
    description:
      "Each validator UID: hotkey, coldkey and its identity, permit, take, alpha and root stake and their TAO value, dividends, vtrust, incentive, consensus (decimals in [0, 1]), emission per epoch and weight-update recency. An unknown netuid is 404 NETUID_NOT_FOUND.",
    tags: ["Data: subnets"],
    params: z.object({ netuid: netuidPath() }),
    own: {
      permit_only: booleanQuery(
        "Only UIDs with a validator permit (default true); false lists every UID with any stake",
      ).optional(),
    },
    exampleParams: { netuid: 64 },
    sorts: VALIDATOR_SORTS,
    page: { defaultLimit: 64, maxLimit: 256 },
    success: {
      schema: ValidatorsSchema,
      description: "One page of validators",
      example: validatorsLatestExample,
    },
    call: ({ query, params, sort, order, page, at }, metadata) =>
      callUnary(
        subnets,
        subnets.getValidatorsLatest,
        { netuid: params.netuid, includeWithoutPermit: query.permit_only === false, sort, order, page, at },
        metadata,
      ),
    linkQuery: (query) => ({ permit_only: flagText(query.permit_only) }),
    render: (answer, view, params) => renderValidatorsLatest(answer, { netuid: params.netuid, ...view }),
  });
}
