import type { IncomingMessage, ServerResponse } from "node:http";
import {
  currentTraceparent,
  isTracingEnabled,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  spanContextOf,
  startEdgeSpan,
  trace,
} from "@platform/telemetry";

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Where a request keeps its span, and a recording span whether it has ended: properties rather
 * than a WeakMap and a WeakSet, whose entries for every short-lived request the garbage collector
 * has to trace as ephemerons.
 */
const SPAN = Symbol("requestSpan");
const ENDED = Symbol("requestSpanEnded");
type WithSpan = IncomingMessage & { [SPAN]?: Span };
type Endable = Span & { [ENDED]?: true };

/**
 * The listener, each request sampled in by this gateway's own sampler in a server span (while
 * tracing is on; the listener itself when off). The caller's `traceparent` decides nothing: it
 * becomes a link of the span (libs/telemetry's startEdgeSpan), and the caller's tracestate and
 * baggage are never read, so they reach neither the backends nor the logs. The span is carried
 * explicitly, not in the async context: the request's context holds it (`requestSpanOf`) and the
 * traceparent its gRPC calls go out with. Why: keeping a context across the awaits of every
 * in-flight request needs AsyncLocalStorage, whose per-promise hook cost the gateway 10–20 % of
 * its throughput at 1 % sampling (bench:data, BENCH_TRACING=1). The span is named by the route
 * template once the access log knows it (`endRequestSpan`), never by the raw path, which carries
 * addresses; a request that closes before that ends it as it stands. A request sampled out has no
 * span and its access line no trace ids.
 */
export function tracedListener(listener: Listener): Listener {
  if (!isTracingEnabled()) return listener;
  return (request, response) => {
    const method = request.method ?? "GET";
    const traceparent = request.headers.traceparent;
    const span = startEdgeSpan(
      method,
      SpanKind.SERVER,
      typeof traceparent === "string" ? spanContextOf(traceparent) : undefined,
    );
    if (span !== undefined) {
      (request as WithSpan)[SPAN] = span;
      span.setAttribute("http.request.method", method);
      response.once("close", () => endRequestSpan(span, method, undefined, response.statusCode));
    }
    listener(request, response);
  };
}

/** The request's server span (undefined while tracing is off, or when its trace was sampled out at this edge). */
export function requestSpanOf(request: IncomingMessage): Span | undefined {
  return (request as WithSpan)[SPAN];
}

/**
 * The traceparent the request's calls carry: only a sampled span's. A request sampled out sends
 * none, and the services below make no spans for it (see libs/grpc's tracing.ts).
 */
export function traceparentOf(span: Span | undefined): string | undefined {
  if (span === undefined || !span.isRecording()) return undefined;
  return currentTraceparent(trace.setSpan(ROOT_CONTEXT, span));
}

/** Names the span by its route template, records the status, and ends it (once). */
export function endRequestSpan(span: Span, method: string, route: string | undefined, status: number): void {
  if (!span.isRecording()) return;
  const endable = span as Endable;
  if (endable[ENDED]) return;
  endable[ENDED] = true;
  if (route !== undefined) {
    span.updateName(`${method} ${route}`);
    span.setAttribute("http.route", route);
  }
  span.setAttribute("http.response.status_code", status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
