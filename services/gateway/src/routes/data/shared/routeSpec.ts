import type { RouteDocs } from "@platform/http";
import type { z } from "zod";
import { halSuccess } from "./answer.js";

/**
 * What the spec of every Data API route helper (historyRoute, latestRoute, latestListRoute) opens
 * with: where the route is, its docs, its path parameters and its own query parameters, and its
 * success answer. The helper adds the parameters, errors and wiring its shape shares.
 */
export interface DataRouteHead<Own extends z.ZodRawShape, P extends z.ZodType, Body> {
  path: string;
  operationId: string;
  summary: string;
  /** What the answer holds (the helper's shape may add to it). */
  description: string;
  tags: string[];
  /** Path parameters, when the route has any. */
  params?: P;
  /** The route's own query parameters (a subject, a filter, a format); the shape's own follow. */
  own: Own;
  success: { schema: z.ZodType<Body>; description: string; example: Body };
}

/** The route's docs: its head's, with the success answer and these errors. */
export function routeDocs<Body>(
  head: Pick<DataRouteHead<z.ZodRawShape, z.ZodType, Body>, "summary" | "description" | "tags" | "success">,
  errors: NonNullable<RouteDocs["errors"]>,
): RouteDocs {
  return {
    summary: head.summary,
    description: head.description,
    tags: head.tags,
    success: halSuccess(head.success.schema, head.success.description, head.success.example),
    errors,
  };
}
