import { callUnary } from "@platform/grpc";
import { booleanQuery } from "@platform/http";
import type { SubnetsServiceClient } from "@platform/proto/data/v1/subnets";
import { NEURON_SORTS } from "@platform/proto/sorts";
import { z } from "zod";
import { flagText, INVALID_ADDRESS } from "../shared/answer.js";
import { latestListRoute } from "../shared/latestListRoute.js";
import { accountAddress, netuidPath } from "../shared/schemas.js";
import { neuronsLatestExample } from "./neuronExamples.js";
import { NeuronsSchema } from "./neuronSchemas.js";
import { renderNeuronsLatest } from "./renderNeurons.js";

/** `GET /data/v1/subnets/{netuid}/neurons/latest`: the whole metagraph, miners included. */
export function getNeuronsLatestRoute(subnets: SubnetsServiceClient) {
  return latestListRoute({
    path: "/data/v1/subnets/:netuid/neurons/latest",
    operationId: "getSubnetNeuronsLatest",
    summary: "Latest metagraph of a subnet: every UID",
    description:
      "Every UID of the subnet, miners (no stake, no permit) included: hotkey, coldkey and its identity, alpha and root stake (nalpha, rao) and their TAO value, rank, trust, consensus, incentive, dividends and validator trust (decimals in [0, 1]), emission per epoch, permit, activity, axon, registration block, immunity and pruning score, each as the runtime's storage holds it at as_of. A filter that matches nothing is an empty page. An unknown netuid is 404 NETUID_NOT_FOUND; a malformed hotkey or coldkey is 400 INVALID_ADDRESS.",
    tags: ["Data: subnets"],
    params: z.object({ netuid: netuidPath() }),
    own: {
      hotkey: accountAddress("Only the UID of this hotkey").optional(),
      coldkey: accountAddress("Only the UIDs of hotkeys this coldkey owns").optional(),
      validator_permit: booleanQuery("Only UIDs with (true) or without (false) a validator permit").optional(),
      active: booleanQuery("Only active (true) or inactive (false) UIDs").optional(),
    },
    errors: [INVALID_ADDRESS],
    exampleParams: { netuid: 64 },
    sorts: NEURON_SORTS,
    page: { defaultLimit: 256, maxLimit: 256 },
    success: {
      schema: NeuronsSchema,
      description: "One page of UIDs",
      example: neuronsLatestExample,
    },
    call: ({ query, params, sort, order, page, at }, metadata) =>
      callUnary(
        subnets,
        subnets.getNeuronsLatest,
        {
          netuid: params.netuid,
          hotkey: query.hotkey,
          coldkey: query.coldkey,
          validatorPermit: query.validator_permit,
          active: query.active,
          sort,
          order,
          page,
          at,
        },
        metadata,
      ),
    linkQuery: (query) => ({
      hotkey: query.hotkey,
      coldkey: query.coldkey,
      validator_permit: flagText(query.validator_permit),
      active: flagText(query.active),
    }),
    render: (answer, view, params) => renderNeuronsLatest(answer, { netuid: params.netuid, ...view }),
  });
}
