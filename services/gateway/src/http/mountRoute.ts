import type { AnyRoute } from "@platform/http";
import type { NextFunction, Request, Response, Router } from "express";
import type { AccessGuard } from "./admission.js";
import type { ConditionalReads } from "./conditional/conditionalReads.js";
import { contextOf } from "./expressContext.js";
import { serveRoute } from "./serveRoute.js";

/** Mounts a route definition on express (the routes apiFastPath does not take: those with a body). */
export function mountRoute(router: Router, route: AnyRoute, guard: AccessGuard, conditional?: ConditionalReads): void {
  router[route.method](route.path, (request: Request, response: Response, next: NextFunction) => {
    serveRoute(
      route,
      { params: request.params, query: request.query, body: request.body },
      contextOf(response),
      response,
      guard,
      conditional,
    ).catch(next);
  });
}
