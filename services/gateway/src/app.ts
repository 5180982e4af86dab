import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { type AnyRoute, sendProblem } from "@platform/http";
import type { Logger } from "@platform/log";
import type { Readiness } from "@platform/runtime";
import express, { type NextFunction, type Request, type Response, Router } from "express";
import type { Registry } from "prom-client";
import { createAccessLog } from "./http/accessLog.js";
import type { AccessGuard } from "./http/admission.js";
import { createApiFastPath } from "./http/apiFastPath.js";
import { answerClientError } from "./http/clientError.js";
import { type ConditionalReads, createConditionalReads } from "./http/conditional/conditionalReads.js";
import { createCors } from "./http/cors.js";
import { accessLogMiddleware, errorHandler, requestContextMiddleware } from "./http/expressContext.js";
import { mountRoute } from "./http/mountRoute.js";
import { PROBLEM_TITLES } from "./http/problemTitles.js";
import { tracedListener } from "./http/requestSpan.js";
import { createLimitedServer, DEFAULT_SERVER_LIMITS, type ServerLimits } from "./http/serverLimits.js";
import { NO_TRUSTED_PROXIES, type TrustedProxies } from "./http/trustedProxies.js";
import { gatewayDocument } from "./openapi/document.js";
import { opsRoutes } from "./ops/opsRoutes.js";

export interface GatewayAppOptions {
  log: Logger;
  /** Checks token, scope and budget of protected routes. */
  guard: AccessGuard;
  /** Proxies whose X-Forwarded-For names the client (TRUST_PROXY_CIDRS); none by default. */
  trustedProxies?: TrustedProxies;
  registry: Registry;
  readiness: Readiness;
  routes: AnyRoute[];
  publicBaseUrl: string;
  maxBodyBytes: number;
  /**
   * ETag, Cache-Control and If-None-Match of the Data API's reads (http/conditional). By default
   * with a 12 s block and no change signals: every conditional request calls its backend.
   */
  conditional?: ConditionalReads;
  /** Connections and timeouts of the server `listen` makes; the configuration's defaults when absent. */
  serverLimits?: ServerLimits;
  /** Origins whose pages may call the API from a browser (CORS_ALLOWED_ORIGINS); none by default. */
  corsOrigins?: readonly string[];
}

/** The gateway's request listener, and a way to serve it. */
export interface GatewayApp {
  (request: IncomingMessage, response: ServerResponse): void;
  listen(port: number, host: string, listening?: () => void): Server;
}

/**
 * The public HTTP surface: the API's GET routes on the fast path (http/apiFastPath.ts), and
 * express for the rest: POST routes with their bodies, the operations routes, and problem+json for
 * unknown paths and methods.
 */
export function createGatewayApp(options: GatewayAppOptions): GatewayApp {
  const accessLog = createAccessLog(options.log, options.registry);
  const trustedProxies = options.trustedProxies ?? NO_TRUSTED_PROXIES;
  const conditional = options.conditional ?? createConditionalReads({ blockSeconds: 12, registry: options.registry });
  const fastPath = createApiFastPath({
    routes: options.routes,
    guard: options.guard,
    log: options.log,
    accessLog,
    publicBaseUrl: options.publicBaseUrl,
    trustedProxies,
    conditional,
  });
  const slowPath = expressApp({ ...options, conditional }, accessLog, trustedProxies);
  const cors = createCors(options.corsOrigins ?? [], options.publicBaseUrl);
  const app = tracedListener((request: IncomingMessage, response: ServerResponse) => {
    if (cors(request, response)) return;
    if (!fastPath(request, response)) slowPath(request, response);
  }) as GatewayApp;
  app.listen = (port, host, listening) =>
    createLimitedServer(app, options.serverLimits ?? DEFAULT_SERVER_LIMITS, trustedProxies)
      .on("clientError", (error: Error, socket: Socket) => answerClientError(error, socket, options.publicBaseUrl))
      .listen(port, host, listening);
  return app;
}

function expressApp(
  options: GatewayAppOptions,
  accessLog: ReturnType<typeof createAccessLog>,
  trustedProxies: TrustedProxies,
): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(requestContextMiddleware(trustedProxies));
  // Every answer is JSON, problem JSON or the docs page: a browser must never sniff one into
  // something it would run (an error echoing a caller's input, read as HTML).
  app.use((_request: Request, response: Response, next: NextFunction) => {
    response.setHeader("x-content-type-options", "nosniff");
    next();
  });
  // RFC 6749 §5.1: anything that may carry credentials is never cached, errors included.
  app.use("/auth", (_request: Request, response: Response, next: NextFunction) => {
    response.setHeader("cache-control", "no-store");
    response.setHeader("pragma", "no-cache");
    next();
  });
  app.use(accessLogMiddleware(accessLog));
  app.use(express.json({ limit: options.maxBodyBytes, type: "application/json", strict: true }));

  const api = Router();
  for (const route of options.routes) mountRoute(api, route, options.guard, options.conditional);
  for (const [path, methods] of methodsByPath(options.routes)) {
    api.all(path, (_request: Request, response: Response) => {
      response.setHeader("allow", methods.join(", "));
      sendProblem(
        response,
        {
          status: 405,
          code: "METHOD_NOT_ALLOWED",
          title: PROBLEM_TITLES.METHOD_NOT_ALLOWED!,
          detail: `use ${methods.join(" or ")} on this path`,
        },
        options.publicBaseUrl,
      );
    });
  }
  app.use(api);
  // After the API routes, which take nearly every request: those then skip the operations router.
  app.use(
    opsRoutes({
      readiness: options.readiness,
      publicBaseUrl: options.publicBaseUrl,
      openApi: () => gatewayDocument(options.routes, options.publicBaseUrl),
    }),
  );

  app.use((request: Request, response: Response) => {
    sendProblem(
      response,
      {
        status: 404,
        code: "NOT_FOUND",
        title: PROBLEM_TITLES.NOT_FOUND!,
        detail: `no route ${request.method} ${request.path}`,
        instance: request.path,
      },
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
