import type { Metadata } from "@grpc/grpc-js";
import { defineRoute, type ParameterRule, type RouteDocs } from "@platform/http";
import type { PageRequest, SortOrder, TimeWindow } from "@platform/proto/common/v1/common";
import type { z } from "zod";
import { DATA_SCOPE, halAnswer, metadataOf } from "./answer.js";
import type { LinkQuery, PageView } from "./render.js";
import { type DataRouteHead, routeDocs } from "./routeSpec.js";
import {
  type IntervalName,
  intervalQuery,
  type OrderName,
  orderQuery,
  pageQuery,
  pageRequest,
  sortOrderOf,
  timeWindow,
  windowedQuery,
  windowLinkQuery,
  windowQuery,
} from "./schemas.js";

/**
 * The shape every history route shares: a window (start/end, and block_start/block_end where the
 * series keeps per-block points), an interval among the route's, a page (limit, cursor) and an
 * order, besides the route's own parameters; one backend call with the window, page and order as
 * the proto carries them; and a HAL page whose links repeat the canonical query. A route gives
 * only what is its own: path, docs, its parameters, its call and its render.
 */
export interface HistoryRouteSpec<Own extends z.ZodRawShape, P extends z.ZodType, Answer, Body>
  extends DataRouteHead<Own, P, Body> {
  // description: what a point is, the window maxima and the page size.
  window: {
    /** The default start, as the docs say it ("end - 7 days"). */
    defaults: string;
    /** Whether block_start/block_end are accepted (series with per-block points). */
    blocks?: boolean;
    intervals: readonly [IntervalName, ...IntervalName[]];
    defaultInterval: IntervalName;
    /** The window maxima per interval, as the docs say them. */
    limits: string;
    /** Rules between parameters besides the window's own. */
    rules?: ParameterRule[];
  };
  page: { defaultLimit: number; maxLimit: number };
  order: { default: OrderName; what: string };
  errors: NonNullable<RouteDocs["errors"]>;
  /** The backend call, with the route's own parameters and the window, page and order as the proto carries them. */
  call(
    input: {
      query: z.output<z.ZodObject<Own>>;
      params: z.output<P>;
      window: TimeWindow;
      page: PageRequest;
      order: SortOrder;
    },
    metadata: Metadata,
  ): Promise<Answer>;
  /** The canonical query as it goes back into links: the route's own parameters around the window's (order and limit follow). */
  linkQuery(query: z.output<z.ZodObject<Own>>, window: LinkQuery): LinkQuery;
  render(answer: Answer, view: PageView, params: z.output<P>): Body;
}

interface CommonQuery {
  start?: string | undefined;
  end?: string | undefined;
  block_start?: number | undefined;
  block_end?: number | undefined;
  interval?: IntervalName | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
  order?: OrderName | undefined;
}

export function historyRoute<Own extends z.ZodRawShape, P extends z.ZodType, Answer, Body>(
  spec: HistoryRouteSpec<Own, P, Answer, Body>,
) {
  const { window, page } = spec;
  return defineRoute({
    method: "get",
    path: spec.path,
    operationId: spec.operationId,
    scope: DATA_SCOPE,
    cost: 2,
    ...(spec.params === undefined ? {} : { params: spec.params }),
    query: windowedQuery(
      {
        ...spec.own,
        ...windowQuery(window.defaults, { blocks: window.blocks ?? false }),
        interval: intervalQuery(window.intervals, window.defaultInterval, window.limits),
        ...pageQuery(page.defaultLimit, page.maxLimit),
        order: orderQuery(spec.order.default, spec.order.what),
      },
      window.rules,
    ),
    docs: routeDocs(spec, spec.errors),
    async handle({ params, query, context }) {
      // The validated query: the route's own members and the common ones above.
      const input = query as z.output<z.ZodObject<Own>> & CommonQuery;
      const request = pageRequest(input, page.defaultLimit);
      const answer = await spec.call(
        {
          query: input,
          params: params as z.output<P>,
          window: timeWindow(input),
          page: request,
          order: sortOrderOf(input.order),
        },
        metadataOf(context),
      );
      const links = { ...spec.linkQuery(input, windowLinkQuery(input)), order: input.order, limit: input.limit };
      return halAnswer(
        spec.render(answer, { query: links, cursor: input.cursor, limit: request.limit }, params as z.output<P>),
      );
    },
  });
}
