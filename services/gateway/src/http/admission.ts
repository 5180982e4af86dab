import type { ServerResponse } from "node:http";
import { AppError } from "@platform/errors";
import {
  type AnyRoute,
  type InputLocation,
  inputPointer,
  queryParameterNames,
  type RequestContext,
  validateRequest,
} from "@platform/http";
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

/**
 * A 400 a service gave for one input against what only it knows (a cursor it did not issue, a window
 * over its maximum, a limit of its own) names the input in `parameter`; it gets the `errors` list
 * every refusal of the request's inputs has, with that one mistake, so a client reads them alike.
 * The input is a path parameter when the route has one of that name, else a body member of a POST
 * (dotted names are nested members) or a query parameter the GET lists.
 */
export function withMistakeList(error: unknown, route: AnyRoute): unknown {
  if (!(error instanceof AppError) || error.httpStatus !== 400) return error;
  const name = error.extras["parameter"];
  if (typeof name !== "string" || name === "" || error.extras["errors"] !== undefined) return error;
  // (queryParameterNames gives the property names of any object schema, the path's too.)
  const named = (schema: AnyRoute["query"]) => schema !== undefined && queryParameterNames(schema).has(name);
  const location: InputLocation | undefined = named(route.params)
    ? "path"
    : route.method === "post"
      ? "body"
      : named(route.query)
        ? "query"
        : undefined;
  // A header (Last-Event-ID) is not an input `errors` points at.
  if (location === undefined) return error;
  const path = location === "body" ? name.split(".") : [name];
  error.extras["errors"] = [{ pointer: inputPointer(location, path), detail: error.detail }];
  return error;
}
