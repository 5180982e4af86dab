import { callUnary } from "@platform/grpc";
import type { SubnetsServiceClient } from "@platform/proto/data/v1/subnets";
import { SUBNET_SORTS } from "@platform/proto/sorts";
import { subnetsLatestExample } from "../examples.js";
import { joinList } from "../shared/answer.js";
import { latestListRoute, SUBNET_LIST } from "../shared/latestListRoute.js";
import { renderSubnetsLatest } from "./renderSubnets.js";
import { SubnetsSchema } from "./subnetSchemas.js";

/** `GET /data/v1/subnets/latest`: subnet summaries with identity, owner, epoch timing, settings and pool. */
export function getSubnetsLatestRoute(subnets: SubnetsServiceClient) {
  return latestListRoute({
    path: "/data/v1/subnets/latest",
    operationId: "getSubnetsLatest",
    summary: "Latest subnets",
    description:
      "Each subnet: name, symbol and identity, owner keys, registration block, mechanism, tempo and epoch blocks, UID counts, registration settings, toggles (transfers, emission, commit-reveal, liquid alpha, Yuma 3), hyperparameters, and a pool summary under _embedded.pool. u64 values that are not block numbers (difficulty, adjustment_alpha, weights_version, bonds_moving_average) are decimal strings.",
    tags: ["Data: subnets"],
    own: SUBNET_LIST.filter(),
    sorts: SUBNET_SORTS,
    page: SUBNET_LIST.page,
    success: {
      schema: SubnetsSchema,
      description: "One page of subnets",
      example: subnetsLatestExample,
    },
    call: ({ query, sort, order, page, at }, metadata) =>
      callUnary(subnets, subnets.getSubnetsLatest, { netuids: query.netuid ?? [], sort, order, page, at }, metadata),
    linkQuery: (query) => ({ netuid: joinList(query.netuid) }),
    render: (answer, view) => renderSubnetsLatest(answer, view),
  });
}
