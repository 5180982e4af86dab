import type { NextFunction, Request, Response } from "express";
import type { Logger } from "@platform/log";
import { Histogram, type Registry } from "prom-client";

/**
 * One log line and one histogram observation per request, labelled by the route template (never
 * the raw path, which would carry addresses and explode metric cardinality). Headers and bodies are
 * never logged: they carry credentials.
 */
export function accessLog(log: Logger, registry: Registry) {
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Gateway request duration by route template and status",
    labelNames: ["method", "route", "status"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return (request: Request, response: Response, next: NextFunction): void => {
    response.on("finish", () => {
      const started = response.locals.startedAt as bigint | undefined;
      const seconds = started === undefined ? 0 : Number(process.hrtime.bigint() - started) / 1e9;
      const route = (request.route?.path as string | undefined) ?? (response.statusCode === 404 ? "(unmatched)" : request.baseUrl || "(other)");
      duration.observe({ method: request.method, route, status: String(response.statusCode) }, seconds);
      const line = {
        requestId: response.locals.requestId,
        method: request.method,
        route,
        status: response.statusCode,
        ms: Math.round(seconds * 1e4) / 10,
      };
      if (response.statusCode >= 500) log.warn(line, "request failed");
      else log.info(line, "request");
    });
    next();
  };
}
