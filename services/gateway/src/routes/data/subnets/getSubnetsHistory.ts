import { callUnary } from "@platform/grpc";
import { integerQuery } from "@platform/http";
import type { SubnetsServiceClient } from "@platform/proto/data/v1/subnets";
import { subnetsHistoryExample } from "../examples.js";
import { INVALID_CURSOR, INVALID_PARAMETER, NETUID_NOT_FOUND, WINDOW_TOO_LARGE } from "../shared/answer.js";
import { historyRoute } from "../shared/historyRoute.js";
import { NETUID_MAX } from "../shared/schemas.js";
import { SERIES_HISTORY, SERIES_HISTORY_TEXT } from "../shared/seriesHistory.js";
import { renderSubnetsHistory } from "./renderSubnets.js";
import { SubnetsHistorySchema } from "./subnetSchemas.js";

/** `GET /data/v1/subnets/history?netuid=`: one subnet's settings at the end of each bucket. */
export function getSubnetsHistoryRoute(subnets: SubnetsServiceClient) {
  return historyRoute({
    path: "/data/v1/subnets/history",
    operationId: "getSubnetsHistory",
    summary: "Subnet settings history",
    description: `One subnet's settings as subnets/latest shows them (name, symbol, identity, owner, mechanism, tempo, UID counts and limits, registration settings, toggles, hyperparameters), from its snapshot in force at each bucket's end; snapshots are taken when the settings change, so block_number is that snapshot's block. What subnets/latest derives from other series (validators with a permit, active UIDs, epoch blocks, the pool) is left out. ${SERIES_HISTORY_TEXT}`,
    tags: ["Data: subnets"],
    own: { netuid: integerQuery({ min: 0, max: NETUID_MAX, description: "The subnet (required)" }) },
    ...SERIES_HISTORY,
    success: {
      schema: SubnetsHistorySchema,
      description: "One page of a subnet's settings",
      example: renderSubnetsHistory(subnetsHistoryExample, {
        query: { netuid: 64, interval: "1d", limit: 1 },
        limit: 1,
        netuid: 64,
      }),
    },
    errors: [INVALID_PARAMETER, INVALID_CURSOR, WINDOW_TOO_LARGE, NETUID_NOT_FOUND],
    call: ({ query, window, page, order }, metadata) =>
      callUnary(subnets, subnets.getSubnetsHistory, { netuid: query.netuid, window, page, order }, metadata),
    linkQuery: (query, window) => ({ netuid: query.netuid, ...window }),
    render: (answer, view) => renderSubnetsHistory(answer, { ...view, netuid: Number(view.query.netuid) }),
  });
}
