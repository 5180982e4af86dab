import { callUnary } from "@platform/grpc";
import { HolderGrouping, type SubnetsServiceClient } from "@platform/proto/data/v1/subnets";
import { z } from "zod";
import { holdersTopExample } from "../examples.js";
import { INVALID_ADDRESS, INVALID_CURSOR, INVALID_PARAMETER, NETUID_NOT_FOUND } from "../shared/answer.js";
import { latestRoute } from "../shared/latestRoute.js";
import { accountAddress, enumQuery, netuidPath, pageQuery, pageRequest } from "../shared/schemas.js";
import { renderHoldersTop } from "./renderSubnets.js";
import { HoldersTopSchema } from "./subnetSchemas.js";

const LIMIT_DEFAULT = 100;
const LIMIT_MAX = 500;

const GROUPINGS = {
  coldkey: HolderGrouping.HOLDER_GROUPING_COLDKEY,
  position: HolderGrouping.HOLDER_GROUPING_POSITION,
} as const;

/** `GET /data/v1/subnets/{netuid}/holders/top`: the largest alpha holders of a subnet. */
export function getHoldersTopRoute(subnets: SubnetsServiceClient) {
  return latestRoute({
    path: "/data/v1/subnets/:netuid/holders/top",
    operationId: "getSubnetHoldersTop",
    summary: "Top alpha holders of a subnet",
    description: `Holders ranked by alpha held, with share of alpha outstanding and TAO value at spot. coverage says whether every position was enumerated (complete) or only stakes on hotkeys registered on the subnet (registered_hotkeys_only). hotkey lists that hotkey's nominators: one row per (coldkey, hotkey) position on it, each naming the hotkey, whatever group_by says; coldkey lists that coldkey's holding (or its positions), each row naming it; rank then counts within the filtered list, and a filter that matches nothing is an empty page. An unknown netuid is 404 NETUID_NOT_FOUND, a malformed hotkey or coldkey 400 INVALID_ADDRESS. limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}; cursors continue up to rank 10,000.`,
    tags: ["Data: subnets"],
    cost: 2,
    params: z.object({ netuid: netuidPath() }),
    own: {
      group_by: enumQuery(
        GROUPINGS,
        "One row per coldkey (summed over its hotkeys, the default) or per (coldkey, hotkey) position",
      ),
      min_alpha_nalpha: z
        .string()
        .regex(/^[0-9]{1,30}$/, { error: "must be a decimal string of nalpha" })
        .optional()
        .meta({ description: 'Smallest holding listed, nalpha; default "1"' }),
      hotkey: accountAddress("Only positions on this hotkey (its nominators)").optional(),
      coldkey: accountAddress("Only this coldkey's holding").optional(),
      ...pageQuery(LIMIT_DEFAULT, LIMIT_MAX),
    },
    success: {
      schema: HoldersTopSchema,
      description: "One page of holders",
      example: renderHoldersTop(holdersTopExample, { netuid: 64, query: { limit: 1 }, limit: 1 }),
    },
    errors: [INVALID_PARAMETER, INVALID_ADDRESS, INVALID_CURSOR, NETUID_NOT_FOUND],
    call: ({ query, params, at }, metadata) =>
      callUnary(
        subnets,
        subnets.getHoldersTop,
        {
          netuid: params.netuid,
          groupBy:
            query.group_by === undefined ? HolderGrouping.HOLDER_GROUPING_UNSPECIFIED : GROUPINGS[query.group_by],
          minAlphaNalpha: query.min_alpha_nalpha,
          hotkey: query.hotkey,
          coldkey: query.coldkey,
          page: pageRequest(query, LIMIT_DEFAULT),
          at,
        },
        metadata,
      ),
    linkQuery: (query) => ({
      group_by: query.group_by,
      min_alpha_nalpha: query.min_alpha_nalpha,
      hotkey: query.hotkey,
      coldkey: query.coldkey,
      limit: query.limit,
    }),
    render: (answer, links, { query, params }) =>
      renderHoldersTop(answer, {
        netuid: params.netuid,
        query: links,
        cursor: query.cursor,
        limit: pageRequest(query, LIMIT_DEFAULT).limit,
      }),
  });
}
