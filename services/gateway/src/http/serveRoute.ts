import type { ServerResponse } from "node:http";
import { type AnyRoute, type RequestContext, sendJsonText } from "@platform/http";
import { type AccessGuard, admit, type RawInput, validateAll, withMistakeList } from "./admission.js";
import type { ConditionalReads } from "./conditional/conditionalReads.js";
import { conditionalReadOf } from "./conditional/conditionalRoute.js";
import { parseIfNoneMatch } from "./conditional/entityTags.js";
import { serveConditionalRead } from "./conditional/serveConditionalRead.js";

/**
 * Serves one route. A protected route first passes the access guard (401, 403, 429 come before any
 * input is looked at, and its RateLimit headers go on every answer); then path, query and body are
 * validated against the route's schemas (a 400 naming the parameter), the handler runs, and its
 * result is written. A failure rejects, for the caller to answer as a problem.
 */
export async function serveRoute(
  route: AnyRoute,
  raw: RawInput,
  context: RequestContext,
  response: ServerResponse,
  guard: AccessGuard,
  conditional?: ConditionalReads,
): Promise<void> {
  try {
    return await serveAdmitted(route, raw, context, response, guard, conditional);
  } catch (error) {
    throw withMistakeList(error, route);
  }
}

async function serveAdmitted(
  route: AnyRoute,
  raw: RawInput,
  context: RequestContext,
  response: ServerResponse,
  guard: AccessGuard,
  conditional?: ConditionalReads,
): Promise<void> {
  // The Data API's reads: ETag, Cache-Control and If-None-Match (http/conditional).
  const read = conditional === undefined ? undefined : conditionalReadOf(route);
  if (read !== undefined) return serveConditionalRead({ route, read, raw, context, response, guard }, conditional!);
  if (route.scope) await admit(route, route.cost ?? 1, context, response, guard);
  const { params, query, body } = validateAll(route, raw);
  const result = await route.handle({ params, query, body, context });
  if (result.stream) return result.stream(response);
  if (result.headers) for (const name in result.headers) response.setHeader(name, result.headers[name]!);
  if (result.status === 200 && route.method === "get" && asksForNoneAtAll(context)) {
    // RFC 9110 §13.1.2: on a GET, `If-None-Match: *` is false whenever a representation exists,
    // so a 200 becomes 304, as the conditional reads answer it; the field is never ignored.
    response.statusCode = 304;
    response.end();
    return;
  }
  sendJsonText(response, result.status, result.contentType ?? "application/json", JSON.stringify(result.body));
}

/** `If-None-Match: *` (a list of tags names none of this route's answers: they carry no ETag). */
const asksForNoneAtAll = (context: RequestContext): boolean =>
  parseIfNoneMatch(context.header("if-none-match"))?.any === true;
