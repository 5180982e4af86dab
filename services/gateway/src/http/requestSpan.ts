import type { IncomingMessage, ServerResponse } from "node:http";
import {
  activeSpan,
  context,
  extractContext,
  isTracingEnabled,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  tracer,
  type Span,
} from "@platform/telemetry";

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

const ended = new WeakSet<Span>();

/**
 * The listener, each request in a server span (while tracing is on; the listener itself when
 * off): the client's `traceparent` is honoured, and everything the request awaits (the access
 * guard's Redis script, the gRPC calls) runs inside the span. The span is named by the route
 * template once the access log knows it (`endRequestSpan`), never by the raw path, which carries
 * addresses; a request that closes before that ends it as it stands.
 */
export function tracedListener(listener: Listener): Listener {
  if (!isTracingEnabled()) return listener;
  return (request, response) => {
    const method = request.method ?? "GET";
    const parent = extractContext(request.headers, ROOT_CONTEXT);
    const span = tracer().startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { "http.request.method": method } },
      parent,
    );
    response.once("close", () => endRequestSpan(span, method, undefined, response.statusCode));
    context.with(trace.setSpan(parent, span), () => listener(request, response));
  };
}

/** The request's server span, to be ended by the access log (undefined while tracing is off). */
export function requestSpan(): Span | undefined {
  return isTracingEnabled() ? activeSpan() : undefined;
}

/** Names the span by its route template, records the status, and ends it (once). */
export function endRequestSpan(span: Span, method: string, route: string | undefined, status: number): void {
  if (ended.has(span)) return;
  ended.add(span);
  if (route !== undefined) {
    span.updateName(`${method} ${route}`);
    span.setAttribute("http.route", route);
  }
  span.setAttribute("http.response.status_code", status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
