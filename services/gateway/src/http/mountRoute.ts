import type { NextFunction, Request, Response, Router } from "express";
import { validateInput, type AnyRoute } from "@platform/http";

/**
 * Mounts a route definition: validates path, query and body against its schemas (a 400 naming the
 * parameter otherwise), runs the handler, and writes its result. Errors go to the error handler.
 */
export function mountRoute(router: Router, route: AnyRoute): void {
  router[route.method](route.path, (request: Request, response: Response, next: NextFunction) => {
    void (async () => {
      const params = route.params ? validateInput(route.params, request.params, "path") : {};
      const query = route.query ? validateInput(route.query, request.query, "query") : {};
      const body = route.body ? validateInput(route.body, request.body ?? {}, "body") : undefined;
      const result = await route.handle({ params, query, body, request });
      for (const [name, value] of Object.entries(result.headers ?? {})) response.setHeader(name, value);
      response.status(result.status).type(result.contentType ?? "application/json").send(JSON.stringify(result.body));
    })().catch(next);
  });
}
