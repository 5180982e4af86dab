import type { Metadata } from "@grpc/grpc-js";
import { defineRoute, type RouteDocs } from "@platform/http";
import type { BlockSelector } from "@platform/proto/common/v1/common";
import { z } from "zod";
import { BLOCK_ERRORS, DATA_SCOPE, halAnswer, metadataOf } from "./answer.js";
import type { LinkQuery } from "./render.js";
import { type DataRouteHead, routeDocs } from "./routeSpec.js";
import { type BlockWanted, blockNumberShape, blockSelectorOf } from "./schemas.js";

/**
 * The shape every latest route over the native network shares: the route's own parameters and
 * `block_number` (the state at a past block, or at the newest finalized one), which goes to the
 * backend as `at`, back into the answer's links after the route's own parameters, and makes an
 * answer at a finalized block given by number immutable; the block errors follow the route's own.
 * A route gives only what is its own: path, docs, its parameters, its call and its render.
 */
export interface LatestRouteSpec<Own extends z.ZodRawShape, P extends z.ZodType, Answer, Body>
  extends DataRouteHead<Own, P, Body> {
  /** Units of the rate budget one call spends (1 when absent). */
  cost?: number;
  /** The route's own errors; BLOCK_ERRORS follow them. */
  errors: NonNullable<RouteDocs["errors"]>;
  /** The backend call, with the route's own parameters and the block asked for as the proto carries it. */
  call(
    input: { query: z.output<z.ZodObject<Own>>; params: z.output<P>; at: BlockSelector | undefined },
    metadata: Metadata,
  ): Promise<Answer>;
  /** The route's own parameters as they go back into links (block_number follows). */
  linkQuery(query: z.output<z.ZodObject<Own>>): LinkQuery;
  render(answer: Answer, links: LinkQuery, input: { query: z.output<z.ZodObject<Own>>; params: z.output<P> }): Body;
}

export function latestRoute<Own extends z.ZodRawShape, P extends z.ZodType, Answer, Body>(
  spec: LatestRouteSpec<Own, P, Answer, Body>,
) {
  return defineRoute({
    method: "get",
    path: spec.path,
    operationId: spec.operationId,
    scope: DATA_SCOPE,
    ...(spec.cost === undefined ? {} : { cost: spec.cost }),
    ...(spec.params === undefined ? {} : { params: spec.params }),
    query: z.object({ ...spec.own, ...blockNumberShape() }),
    docs: routeDocs(spec, [...spec.errors, ...BLOCK_ERRORS]),
    async handle({ params, query, context }) {
      // The validated query: the route's own members and block_number.
      const input = query as z.output<z.ZodObject<Own>> & { block_number?: BlockWanted | undefined };
      const own = { query: input, params: params as z.output<P> };
      const answer = await spec.call({ ...own, at: blockSelectorOf(input.block_number) }, metadataOf(context));
      const links = { ...spec.linkQuery(input), block_number: input.block_number };
      return halAnswer(spec.render(answer, links, own), input.block_number);
    },
  });
}
