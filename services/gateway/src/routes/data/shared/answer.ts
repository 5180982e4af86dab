import { HAL_CONTENT_TYPE, type RequestContext, type RouteDocs, type RouteResult } from "@platform/http";
import type { z } from "zod";
import { callMetadata } from "../../../backends.js";

/** Every Data API route needs this scope (API.md). */
export const DATA_SCOPE = "data:read";

/** gRPC metadata for a backend call made for this request: request id and API key id, never the token. */
export function metadataOf(context: RequestContext) {
  return callMetadata(context, context.keyId);
}

/**
 * A 200 HAL answer. Its ETag and Cache-Control (fresh until the next expected block after its
 * as_of) are added where it is served, as a conditional read (http/conditional, shared/conditional.ts).
 */
export function halAnswer(body: unknown): RouteResult {
  return { status: 200, contentType: HAL_CONTENT_TYPE, body };
}

/** The success part of a route's docs: the answer's schema, what it is, and an example its render made. */
export function halSuccess<S extends z.ZodType>(
  schema: S,
  description: string,
  example: z.output<S>,
): RouteDocs["success"] {
  return { status: 200, description, contentType: HAL_CONTENT_TYPE, example, schema };
}

type ErrorDoc = NonNullable<RouteDocs["errors"]>[number];
export const INVALID_PARAMETER: ErrorDoc = { status: 400, code: "INVALID_PARAMETER" };
export const INVALID_ADDRESS: ErrorDoc = { status: 400, code: "INVALID_ADDRESS" };
export const INVALID_CURSOR: ErrorDoc = { status: 400, code: "INVALID_CURSOR" };
export const WINDOW_TOO_LARGE: ErrorDoc = { status: 400, code: "WINDOW_TOO_LARGE" };
export const NETUID_NOT_FOUND: ErrorDoc = { status: 404, code: "NETUID_NOT_FOUND" };

/** A netuid list as it goes back into links. */
export const joinList = (values: readonly (string | number)[] | undefined): string | undefined =>
  values === undefined ? undefined : values.join(",");
/** A boolean flag as it goes back into links. */
export const flagText = (value: boolean | undefined): string | undefined =>
  value === undefined ? undefined : String(value);
