import type { NextFunction, Request, Response, Router } from "express";
import { validateInput, type AnyRoute } from "@platform/http";
import type { Admission, GuardedRoute } from "../access/accessGuard.js";

export type AccessGuard = (request: Request, route: GuardedRoute) => Promise<Admission>;

/**
 * Mounts a route definition. A protected route first passes the access guard (401, 403, 429 come
 * before any input is looked at, and its RateLimit headers go on every answer); then path, query
 * and body are validated against the route's schemas (a 400 naming the parameter), the handler
 * runs, and its result is written. Errors go to the error handler.
 */
export function mountRoute(router: Router, route: AnyRoute, guard: AccessGuard): void {
  router[route.method](route.path, (request: Request, response: Response, next: NextFunction) => {
    void (async () => {
      if (route.scope) {
        const admission = await guard(request, { scope: route.scope, cost: route.cost ?? 1 });
        response.locals.keyId = admission.keyId;
        for (const [name, value] of Object.entries(admission.headers)) response.setHeader(name, value);
      }
      const params = route.params ? validateInput(route.params, request.params, "path") : {};
      const query = route.query ? validateInput(route.query, request.query, "query") : {};
      const body = route.body ? validateInput(route.body, request.body ?? {}, "body") : undefined;
      const result = await route.handle({ params, query, body, request });
      if (result.headers) for (const name in result.headers) response.setHeader(name, result.headers[name]!);
      sendJson(response, result.status, result.contentType ?? "application/json", JSON.stringify(result.body));
    })().catch(next);
  });
}

/**
 * Writes a JSON text as express's `send` would (status, `<type>; charset=utf-8`, Content-Length;
 * node leaves the body out of an answer to HEAD) without its generic steps: no content-type
 * parsing and formatting, no ETag (disabled in the app), no freshness check (no validators are
 * sent, so nothing can be fresh), no Buffer copy of a long body.
 */
export function sendJson(response: Response, status: number, contentType: string, text: string): void {
  response.statusCode = status;
  response.setHeader("content-type", `${contentType}; charset=utf-8`);
  response.setHeader("content-length", Buffer.byteLength(text));
  response.end(text);
}
