import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseQuery } from "node:querystring";
import { type AnyRoute, sendProblem } from "@platform/http";
import type { Logger } from "@platform/log";
import type { AccessLog } from "./accessLog.js";
import type { AccessGuard } from "./admission.js";
import type { ConditionalReads } from "./conditional/conditionalReads.js";
import { problemOfError } from "./problemOfError.js";
import { startRequest } from "./requestContext.js";
import { createRouteTable } from "./routeTable.js";
import { serveRoute } from "./serveRoute.js";
import type { TrustedProxies } from "./trustedProxies.js";

export interface ApiFastPathOptions {
  routes: AnyRoute[];
  guard: AccessGuard;
  log: Logger;
  accessLog: AccessLog;
  publicBaseUrl: string;
  /** Proxies whose X-Forwarded-For names the client (TRUST_PROXY_CIDRS). */
  trustedProxies: TrustedProxies;
  /** ETag, Cache-Control and If-None-Match of the Data API's reads. */
  conditional?: ConditionalReads;
}

/**
 * Serves the API's GET (and HEAD) routes straight from node's request, before express: the same
 * route definitions, guard, validation, handlers, problems and access log as express's mounting,
 * without express's router and middleware chain: express 5's own cost per request (half of it
 * from swapping the prototypes of node's request and response, which leaves node's own HTTP code
 * on slower paths) was more than all the gateway's own work on a Data API read, as bench/data
 * measures against its express and bare-node baselines (`pnpm data`). Anything else (POST
 * routes, which need their bodies parsed, the operations
 * routes, unknown paths, other methods) answers false and goes on to express.
 */
export function createApiFastPath(
  options: ApiFastPathOptions,
): (request: IncomingMessage, response: ServerResponse) => boolean {
  const find = createRouteTable(options.routes, "get");
  const { guard, conditional } = options;
  return (request, response) => {
    const method = request.method;
    if (method !== "GET" && method !== "HEAD") return false;
    const url = request.url ?? "";
    const queryAt = url.indexOf("?");
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const match = find(path);
    if (!match) return false;
    // As express's chain sets it for what it serves: a 200, a 304 or a problem echoing a caller's
    // input must never be sniffed by a browser into something it would run (HTML, script).
    response.setHeader("x-content-type-options", "nosniff");
    const context = startRequest(request, response, options.trustedProxies);
    const raw = { params: match.params, query: queryAt < 0 ? {} : parseQuery(url.slice(queryAt + 1)), body: undefined };
    const finished = () => options.accessLog.record(method, match.route.path, response.statusCode, context);
    serveRoute(match.route, raw, context, response, guard, conditional).then(finished, (error: unknown) => {
      if (response.headersSent) {
        options.log.error({ err: error, requestId: context.requestId }, "failed after the answer was sent");
        response.destroy();
      } else {
        const { problem, headers } = problemOfError(error, options.log, context.requestId, path);
        for (const name in headers) response.setHeader(name, headers[name]!);
        sendProblem(response, problem, options.publicBaseUrl);
      }
      finished();
    });
    return true;
  };
}
