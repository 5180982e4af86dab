import {
  type Attributes,
  type Context,
  context,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";

let enabled = false;
/** The provider's tracer, asked once per start: `trace.getTracer` builds a key and looks it up on every call. */
let cachedTracer: Tracer | undefined;

/** Set by startTracing: adapters skip their span work entirely while tracing is off. */
export function setTracingEnabled(on: boolean): void {
  enabled = on;
  cachedTracer = undefined;
}

/** True while a startTracing with an exporter is running in this process. */
export function isTracingEnabled(): boolean {
  return enabled;
}

/** The platform's tracer (the API's no-op one while tracing is off). */
export function tracer(): Tracer {
  if (!enabled) return trace.getTracer("@platform/telemetry");
  cachedTracer ??= trace.getTracer("@platform/telemetry");
  return cachedTracer;
}

/** The active span, if a sampled or recording one is open in this async context. */
export function activeSpan(): Span | undefined {
  return trace.getSpan(context.active());
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** The parent context; the active one when omitted. */
  parent?: Context;
  /** When the work began, if before the call (milliseconds since the epoch). */
  startTime?: number;
}

/**
 * Runs `body` inside a new span made active for everything it awaits; the span ends when it
 * settles, with an error status (and the exception's type and message) when it throws.
 */
export async function inSpan<T>(name: string, options: SpanOptions, body: (span: Span) => Promise<T>): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(
    name,
    {
      ...(options.kind === undefined ? {} : { kind: options.kind }),
      ...(options.attributes === undefined ? {} : { attributes: options.attributes }),
      ...(options.links === undefined ? {} : { links: options.links }),
      ...(options.startTime === undefined ? {} : { startTime: options.startTime }),
    },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => body(span));
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Marks a span failed, with the error's type and message (never its stack's data). */
export function failSpan(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  span.setAttribute("error.type", error instanceof Error ? error.name : typeof error);
}

export { SpanKind, SpanStatusCode };
