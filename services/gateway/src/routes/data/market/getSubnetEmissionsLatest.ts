import { callUnary } from "@platform/grpc";
import type { MarketServiceClient } from "@platform/proto/data/v1/market";
import { EMISSION_SORTS } from "@platform/proto/sorts";
import { emissionsLatestExample } from "../examples.js";
import { joinList } from "../shared/answer.js";
import { latestListRoute, SUBNET_LIST } from "../shared/latestListRoute.js";
import { SubnetEmissionsSchema } from "./marketSchemas.js";
import { renderEmissionsLatest } from "./renderMarket.js";

/** `GET /data/v1/subnet-emissions/latest`: what each subnet received in the last block, and its split. */
export function getSubnetEmissionsLatestRoute(market: MarketServiceClient) {
  return latestListRoute({
    path: "/data/v1/subnet-emissions/latest",
    operationId: "getSubnetEmissionsLatest",
    summary: "Latest subnet emissions",
    description:
      "Per subnet, the last block's TAO and alpha emission, its share of the block emission, the derived owner/miners/validators/root split of alpha out, the pending (undistributed) alpha, epoch timing and a per-day estimate.",
    tags: ["Data: market"],
    own: SUBNET_LIST.filter(),
    sorts: EMISSION_SORTS,
    page: SUBNET_LIST.page,
    success: {
      schema: SubnetEmissionsSchema,
      description: "One page of emissions",
      example: emissionsLatestExample,
    },
    call: ({ query, sort, order, page, at }, metadata) =>
      callUnary(
        market,
        market.getSubnetEmissionsLatest,
        { netuids: query.netuid ?? [], sort, order, page, at },
        metadata,
      ),
    linkQuery: (query) => ({ netuid: joinList(query.netuid) }),
    render: (answer, view) => renderEmissionsLatest(answer, view),
  });
}
