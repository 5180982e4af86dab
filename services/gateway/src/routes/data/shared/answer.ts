import { HAL_CONTENT_TYPE, type RequestContext, type RouteDocs, type RouteResult } from "@platform/http";
import type { z } from "zod";
import { callMetadata } from "../../../backends.js";
import type { BlockWanted } from "./schemas.js";

/** Every Data API route needs this scope (API.md). */
export const DATA_SCOPE = "data:read";

/** gRPC metadata for a backend call made for this request: request id and API key id, never the token. */
export function metadataOf(context: RequestContext) {
  return callMetadata(context, context.keyId);
}

/**
 * A 200 HAL answer. Its ETag and Cache-Control (fresh until the next expected block after its
 * as_of) are added where it is served, as a conditional read (http/conditional, shared/conditional.ts).
 * `wanted` is the route's `block_number`: an answer at a block asked for by number whose as_of
 * says finalized can never change (no reorganisation reaches it), and goes out immutable.
 * `finalized` itself moves with the chain, so its answers do not.
 */
export function halAnswer(body: unknown, wanted?: BlockWanted): RouteResult {
  const immutable = typeof wanted === "number" && finalityOf(body) === "finalized";
  return { status: 200, contentType: HAL_CONTENT_TYPE, body, ...(immutable ? { immutable } : {}) };
}

function finalityOf(body: unknown): unknown {
  const asOf = (body as { as_of?: { finality?: unknown } | null } | null)?.as_of;
  return asOf?.finality;
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
export const BLOCK_NOT_YET_INDEXED: ErrorDoc = { status: 404, code: "BLOCK_NOT_YET_INDEXED" };
export const BLOCK_BEFORE_HISTORY: ErrorDoc = { status: 404, code: "BLOCK_BEFORE_HISTORY" };
/** The problems of `block_number` (shared/schemas.ts blockNumberQuery). */
export const BLOCK_ERRORS: ErrorDoc[] = [BLOCK_NOT_YET_INDEXED, BLOCK_BEFORE_HISTORY];
/** A time (`at`) past now, or before the history kept: 404s, as their block_number counterparts. */
export const TIME_ERRORS: ErrorDoc[] = [
  { status: 404, code: "TIME_NOT_YET_INDEXED" },
  { status: 404, code: "TIME_BEFORE_HISTORY" },
];

/** A netuid list as it goes back into links. */
export const joinList = (values: readonly (string | number)[] | undefined): string | undefined =>
  values === undefined ? undefined : values.join(",");
/** A boolean flag as it goes back into links. */
export const flagText = (value: boolean | undefined): string | undefined =>
  value === undefined ? undefined : String(value);
