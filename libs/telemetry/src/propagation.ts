import { type Context, context, type SpanContext, type TextMapGetter, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";

// The W3C propagator itself, not the global one: a record's or a call's traceparent is read and
// written the same way whether or not this process exports spans.
const w3c = new W3CTraceContextPropagator();

type Headers = Record<string, string | string[] | undefined>;

const getter: TextMapGetter<Headers> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key] ?? carrier[key.toLowerCase()],
};

/**
 * Writes the active (or given) span's `traceparent` (and `tracestate`) into a plain headers
 * record: Kafka headers, NATS headers, gRPC metadata. Writes nothing when no span is active.
 */
export function injectTraceparent(headers: Record<string, string>, from: Context = context.active()): void {
  if (trace.getSpan(from) === undefined) return;
  w3c.inject(from, headers, {
    set: (carrier, key, value) => {
      carrier[key] = value;
    },
  });
}

/** The `traceparent` of the active (or given) span's context; undefined without one. */
export function currentTraceparent(from: Context = context.active()): string | undefined {
  const headers: Record<string, string> = {};
  injectTraceparent(headers, from);
  return headers.traceparent;
}

/**
 * The context a received `traceparent` (and `tracestate`) describes, as a remote parent on top of
 * `base` (the root context by default); `base` itself when there is none or it is malformed.
 */
export function extractContext(headers: Headers, base: Context = context.active()): Context {
  if (headers.traceparent === undefined) return base;
  return w3c.extract(base, headers, getter);
}

/** The span context a `traceparent` names (for span links); undefined when missing or malformed. */
export function spanContextOf(traceparent: string | undefined, tracestate?: string): SpanContext | undefined {
  if (traceparent === undefined) return undefined;
  const headers: Headers = tracestate === undefined ? { traceparent } : { traceparent, tracestate };
  return trace.getSpanContext(w3c.extract(context.active(), headers, getter));
}
