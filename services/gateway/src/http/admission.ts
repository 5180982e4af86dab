import type { ServerResponse } from "node:http";
import { type AnyRoute, type RequestContext, validateRequest } from "@platform/http";
import type { Admission, GuardedRoute } from "../access/accessGuard.js";

/**
 * The two steps every served route takes before its handler, whether served plainly
 * (serveRoute.ts) or as a conditional read (conditional/serveConditionalRead.ts): the access guard
 * and the validation of its inputs.
 */

export type AccessGuard = (context: RequestContext, route: GuardedRoute) => Promise<Admission>;

/** A request's inputs as they arrived: path parameters, query and (for POST) the parsed body. */
export interface RawInput {
  params: unknown;
  query: unknown;
  body: unknown;
}

/** Passes a protected route's access guard at `cost` units: the key on the context, the RateLimit headers on the answer. */
export async function admit(
  route: AnyRoute,
  cost: number,
  context: RequestContext,
  response: ServerResponse,
  guard: AccessGuard,
): Promise<void> {
  const admission = await guard(context, { scope: route.scope!, cost });
  context.keyId = admission.keyId;
  if (admission.credential) context.credential = admission.credential;
  for (const name in admission.headers) response.setHeader(name, admission.headers[name]!);
}

/**
 * A request's validated inputs: path, query and body. One refusal lists every mistake, a query
 * parameter the route does not list among them (libs/http validateRequest).
 */
export function validateAll(route: AnyRoute, raw: RawInput): { params: unknown; query: unknown; body: unknown } {
  return validateRequest(route, raw);
}
