import type { Logger } from "@platform/log";
import { INVALID_TRACEID, type Span } from "@platform/telemetry";
import { Histogram, type Registry } from "prom-client";
import type { GatewayContext } from "./requestContext.js";
import { endRequestSpan } from "./requestSpan.js";

/**
 * One log line and one histogram observation per request, labelled by the route template (never
 * the raw path, which would carry addresses and explode metric cardinality). Headers and bodies are
 * never logged: they carry credentials.
 */
export interface AccessLog {
  record(method: string, route: string, status: number, context: GatewayContext): void;
}

/** The span's ids; none for the invalid context a suppressed trace gets (the SDK's ids and a parsed traceparent's are valid). */
function traceIdsOf(span: Span): { trace_id: string; span_id: string } | Record<string, never> {
  const ids = span.spanContext();
  return ids.traceId === INVALID_TRACEID ? {} : { trace_id: ids.traceId, span_id: ids.spanId };
}

export function createAccessLog(log: Logger, registry: Registry): AccessLog {
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Gateway request duration by route template and status",
    labelNames: ["method", "route", "status"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return {
    record(method, route, status, context) {
      const seconds = Number(process.hrtime.bigint() - context.startedAt) / 1e9;
      duration.observe({ method, route, status: String(status) }, seconds);
      if (context.span) endRequestSpan(context.span, method, route, status);
      // The line is built only to be written (a service run at warn writes 5xx lines alone).
      if (status < 500 && !log.isLevelEnabled("info")) return;
      const line = {
        requestId: context.requestId,
        method,
        route,
        status,
        ms: Math.round(seconds * 1e4) / 10,
        // Named here, not by the log's mixin: the gateway keeps no active span across awaits.
        // Always this gateway's own trace: a caller's trace context is never logged.
        ...(context.span === undefined ? {} : traceIdsOf(context.span)),
      };
      if (status >= 500) log.warn(line, "request failed");
      else log.info(line, "request");
    },
  };
}
