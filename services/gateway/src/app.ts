import express, { Router, type NextFunction, type Request, type Response } from "express";
import { buildOpenApiDocument, sendProblem, type AnyRoute } from "@platform/http";
import type { Logger } from "@platform/log";
import type { Readiness } from "@platform/runtime";
import type { Registry } from "prom-client";
import { accessLog } from "./http/accessLog.js";
import { errorHandler } from "./http/errorHandler.js";
import { mountRoute, type AccessGuard } from "./http/mountRoute.js";
import { PROBLEM_TITLES } from "./http/problemTitles.js";
import { requestContext } from "./http/requestContext.js";
import { opsRoutes } from "./ops/opsRoutes.js";

export interface GatewayAppOptions {
  log: Logger;
  /** Checks token, scope and budget of protected routes. */
  guard: AccessGuard;
  /** Proxy hops whose X-Forwarded-For is trusted for the client address. */
  trustProxyHops?: number;
  registry: Registry;
  readiness: Readiness;
  routes: AnyRoute[];
  publicBaseUrl: string;
  maxBodyBytes: number;
}

/** The public HTTP surface: operations routes, the mounted API routes, and problem+json for everything else. */
export function createGatewayApp(options: GatewayAppOptions): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", options.trustProxyHops ?? 0);
  app.use(requestContext);
  // RFC 6749 §5.1: anything that may carry credentials is never cached, errors included.
  app.use("/auth", (_request: Request, response: Response, next: NextFunction) => {
    response.setHeader("cache-control", "no-store");
    response.setHeader("pragma", "no-cache");
    next();
  });
  app.use(accessLog(options.log, options.registry));
  app.use(express.json({ limit: options.maxBodyBytes, type: "application/json", strict: true }));

  const api = Router();
  for (const route of options.routes) mountRoute(api, route, options.guard);
  for (const [path, methods] of methodsByPath(options.routes)) {
    api.all(path, (_request: Request, response: Response) => {
      response.setHeader("allow", methods.join(", "));
      sendProblem(
        response,
        { status: 405, code: "METHOD_NOT_ALLOWED", title: PROBLEM_TITLES.METHOD_NOT_ALLOWED!, detail: `use ${methods.join(" or ")} on this path` },
        options.publicBaseUrl,
      );
    });
  }
  app.use(api);
  // After the API routes, which take nearly every request: those then skip the operations router.
  app.use(
    opsRoutes({
      readiness: options.readiness,
      registry: options.registry,
      openApi: () =>
        buildOpenApiDocument(
          {
            title: "Chain data and cross-chain intents API",
            version: "1.0.0",
            description:
              "Data API (/data/v1) about the Bittensor network and TAO, and the Service API (/intents/v1), the off-chain companion to ERC-7683 intents opened on-chain with FullSettler.open(...).",
            serverUrl: options.publicBaseUrl,
          },
          options.routes,
        ),
    }),
  );

  app.use((request: Request, response: Response) => {
    sendProblem(
      response,
      { status: 404, code: "NOT_FOUND", title: PROBLEM_TITLES.NOT_FOUND!, detail: `no route ${request.method} ${request.path}`, instance: request.path },
      options.publicBaseUrl,
    );
  });
  app.use(errorHandler(options.log, options.publicBaseUrl));
  return app;
}

function methodsByPath(routes: AnyRoute[]): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  for (const route of routes) {
    const methods = byPath.get(route.path) ?? [];
    methods.push(route.method.toUpperCase());
    if (route.method === "get") methods.push("HEAD");
    byPath.set(route.path, methods);
  }
  return byPath;
}
