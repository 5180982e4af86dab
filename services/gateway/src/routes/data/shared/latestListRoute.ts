import type { Metadata } from "@grpc/grpc-js";
import type { RouteDocs } from "@platform/http";
import type { BlockSelector, PageRequest, SortOrder } from "@platform/proto/common/v1/common";
import { type SortName, type SortOptions, type SortValue, sortValueOf } from "@platform/proto/sorts";
import type { z } from "zod";
import { INVALID_CURSOR, INVALID_PARAMETER, NETUID_NOT_FOUND } from "./answer.js";
import { latestRoute } from "./latestRoute.js";
import type { LinkQuery, PageView } from "./render.js";
import type { DataRouteHead } from "./routeSpec.js";
import { enumQuery, netuidList, type OrderName, orderQuery, pageQuery, pageRequest, sortOrderOf } from "./schemas.js";

type Sorts = SortOptions<string, number>;

/**
 * What the lists over the subnets (subnets, subnet pools, subnet emissions) share: a `netuid=1,2`
 * filter of at most 256 subnets, and one page holding them all by default.
 */
export const SUBNET_LIST = {
  filter: () => ({ netuid: netuidList(256, "Only these subnets (an unknown one is 404 NETUID_NOT_FOUND)").optional() }),
  page: { defaultLimit: 256, maxLimit: 256 },
};

/**
 * The shape the latest lists share (subnets, subnet pools, subnet emissions, a subnet's
 * validators): a latest route (block_number, see latestRoute.ts) whose query is the route's own
 * filters, then a sort key among the list's sort options (@platform/proto/sorts, the table
 * data-query reads them back with), an order, and a page (limit, cursor); one backend call; and a
 * HAL page whose links repeat the canonical query. An unknown netuid is 404 NETUID_NOT_FOUND.
 * The description says what an item is; the page size's default and maximum follow it.
 */
export interface LatestListRouteSpec<Own extends z.ZodRawShape, P extends z.ZodType, S extends Sorts, Answer, Body>
  extends Omit<DataRouteHead<Own, P, Body>, "success"> {
  /** The example is an answer: the route renders it as a page of one item (with exampleParams as its path's). */
  success: { schema: z.ZodType<Body>; description: string; example: Answer };
  exampleParams?: z.output<P>;
  /** Errors of the route's own parameters, after the list's (INVALID_PARAMETER, INVALID_CURSOR, NETUID_NOT_FOUND). */
  errors?: NonNullable<RouteDocs["errors"]>;
  sorts: S;
  page: { defaultLimit: number; maxLimit: number };
  /** The backend call, with the route's own parameters and the sort, order, page and block as the proto carries them. */
  call(
    input: {
      query: z.output<z.ZodObject<Own>>;
      params: z.output<P>;
      sort: SortValue<S>;
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

export function latestListRoute<Own extends z.ZodRawShape, P extends z.ZodType, S extends Sorts, Answer, Body>(
  spec: LatestListRouteSpec<Own, P, S, Answer, Body>,
) {
  const { sorts, page, own, call, linkQuery, render, success, exampleParams, errors = [], ...head } = spec;
  // The validated query: the route's own members and the list's ones.
  const listQuery = (query: unknown) => query as z.output<z.ZodObject<Own>> & ListQuery<SortName<S>>;
  return latestRoute({
    ...head,
    description: `${spec.description} limit defaults to ${page.defaultLimit}, at most ${page.maxLimit}.`,
    own: {
      ...own,
      sort: enumQuery(sorts.values, `Sort key; default ${sorts.defaultName}`),
      order: orderQuery(sorts.defaultOrder, "Sort direction"),
      ...pageQuery(page.defaultLimit, page.maxLimit),
    },
    success: {
      ...success,
      example: render(success.example, { query: { limit: 1 }, limit: 1 }, exampleParams as z.output<P>),
    },
    errors: [INVALID_PARAMETER, INVALID_CURSOR, NETUID_NOT_FOUND, ...errors],
    call: ({ query, params, at }, metadata) => {
      const input = listQuery(query);
      const request = {
        sort: sortValueOf(sorts, input.sort) as SortValue<S>,
        order: sortOrderOf(input.order),
        page: pageRequest(input, page.defaultLimit),
      };
      return call({ query: input, params: params as z.output<P>, ...request, at }, metadata);
    },
    linkQuery: (query) => {
      const input = listQuery(query);
      return { ...linkQuery(input), sort: input.sort, order: input.order, limit: input.limit };
    },
    render: (answer, links, { query, params }) => {
      const input = listQuery(query);
      const view = { query: links, cursor: input.cursor, limit: pageRequest(input, page.defaultLimit).limit };
      return render(answer, view, params as z.output<P>);
    },
  });
}
