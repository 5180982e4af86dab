import { sendProblem } from "@platform/http";
import type { Logger } from "@platform/log";
import type { NextFunction, Request, Response } from "express";
import type { AccessLog } from "./accessLog.js";
import { problemOfError } from "./problemOfError.js";
import { type GatewayContext, startRequest } from "./requestContext.js";
import type { TrustedProxies } from "./trustedProxies.js";

// What express's middleware chain needs to share the fast path's request context, access log and
// problems: the routes express serves answer exactly as the fast path's do.

/** The first middleware: the request's context (id, start time) in `response.locals`. */
export function requestContextMiddleware(trustedProxies: TrustedProxies) {
  return (request: Request, response: Response, next: NextFunction): void => {
    response.locals.context = startRequest(request, response, trustedProxies);
    next();
  };
}

export function contextOf(response: Response): GatewayContext {
  return response.locals.context as GatewayContext;
}

/** Records every request express answers once it is finished, labelled by its route template. */
export function accessLogMiddleware(accessLog: AccessLog) {
  return (request: Request, response: Response, next: NextFunction): void => {
    response.on("finish", () => {
      const route =
        (request.route?.path as string | undefined) ??
        (response.statusCode === 404 ? "(unmatched)" : request.baseUrl || "(other)");
      accessLog.record(request.method, route, response.statusCode, contextOf(response));
    });
    next();
  };
}

/** The last middleware: every failure leaves as application/problem+json. */
export function errorHandler(log: Logger, problemTypeBase: string) {
  // express recognises an error handler by its four parameters
  return (error: unknown, request: Request, response: Response, _next: NextFunction): void => {
    const { problem, headers } = problemOfError(
      error,
      log,
      contextOf(response)?.requestId ?? "",
      request.originalUrl.split("?")[0] ?? "",
    );
    for (const name in headers) response.setHeader(name, headers[name]!);
    sendProblem(response, problem, problemTypeBase);
  };
}
