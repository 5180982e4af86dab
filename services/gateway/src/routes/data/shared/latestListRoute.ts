import type { Metadata } from "@grpc/grpc-js";
import type { BlockSelector, PageRequest, SortOrder } from "@platform/proto/common/v1/common";
import { type SortOptions, sortValueOf } from "@platform/proto/sorts";
import type { z } from "zod";
import { INVALID_CURSOR, INVALID_PARAMETER, NETUID_NOT_FOUND } from "./answer.js";
import { latestRoute } from "./latestRoute.js";
import type { LinkQuery, PageView } from "./render.js";
import { enumQuery, type OrderName, orderQuery, pageQuery, pageRequest, sortOrderOf } from "./schemas.js";

/**
 * The shape the latest lists share (subnets, subnet pools, subnet emissions, a subnet's
 * validators): a latest route (block_number, see latestRoute.ts) whose query is the route's own
 * filters, then a sort key among the list's sort options (@platform/proto/sorts, the table
 * data-query reads them back with), an order, and a page (limit, cursor); one backend call; and a
 * HAL page whose links repeat the canonical query. An unknown netuid is 404 NETUID_NOT_FOUND.
 */
export interface LatestListRouteSpec<
  Own extends z.ZodRawShape,
  P extends z.ZodType,
  N extends string,
  V extends number,
  Answer,
  Body,
> {
  path: string;
  operationId: string;
  summary: string;
  /** What an item is; the page size's default and maximum follow. */
  description: string;
  tags: string[];
  /** Path parameters, when the route has any. */
  params?: P;
  /** The route's own filters; sort, order, limit, cursor and block_number follow. */
  own: Own;
  sorts: SortOptions<N, V>;
  page: { defaultLimit: number; maxLimit: number };
  success: { schema: z.ZodType<Body>; description: string; example: Body };
  /** The backend call, with the route's own parameters and the sort, order, page and block as the proto carries them. */
  call(
    input: {
      query: z.output<z.ZodObject<Own>>;
      params: z.output<P>;
      sort: V;
      order: SortOrder;
      page: PageRequest;
      at: BlockSelector | undefined;
    },
    metadata: Metadata,
  ): Promise<Answer>;
  /** The route's own filters as they go back into links (sort, order, limit and block_number follow). */
  linkQuery(query: z.output<z.ZodObject<Own>>): LinkQuery;
  render(answer: Answer, view: PageView, params: z.output<P>): Body;
}

interface ListQuery<N extends string> {
  sort?: N | undefined;
  order?: OrderName | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export function latestListRoute<
  Own extends z.ZodRawShape,
  P extends z.ZodType,
  N extends string,
  V extends number,
  Answer,
  Body,
>(spec: LatestListRouteSpec<Own, P, N, V, Answer, Body>) {
  const { sorts, page } = spec;
  // The validated query: the route's own members and the list's ones.
  const listQuery = (query: unknown) => query as z.output<z.ZodObject<Own>> & ListQuery<N>;
  return latestRoute({
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: `${spec.description} limit defaults to ${page.defaultLimit}, at most ${page.maxLimit}.`,
    tags: spec.tags,
    ...(spec.params === undefined ? {} : { params: spec.params }),
    own: {
      ...spec.own,
      sort: enumQuery(sorts.values, `Sort key; default ${sorts.defaultName}`),
      order: orderQuery(sorts.defaultOrder, "Sort direction"),
      ...pageQuery(page.defaultLimit, page.maxLimit),
    },
    success: spec.success,
    errors: [INVALID_PARAMETER, INVALID_CURSOR, NETUID_NOT_FOUND],
    call: ({ query, params, at }, metadata) => {
      const input = listQuery(query);
      const request = {
        sort: sortValueOf(sorts, input.sort),
        order: sortOrderOf(input.order),
        page: pageRequest(input, page.defaultLimit),
      };
      return spec.call({ query: input, params: params as z.output<P>, ...request, at }, metadata);
    },
    linkQuery: (query) => {
      const input = listQuery(query);
      return { ...spec.linkQuery(input), sort: input.sort, order: input.order, limit: input.limit };
    },
    render: (answer, links, { query, params }) => {
      const input = listQuery(query);
      const view = { query: links, cursor: input.cursor, limit: pageRequest(input, page.defaultLimit).limit };
      return spec.render(answer, view, params as z.output<P>);
    },
  });
}
