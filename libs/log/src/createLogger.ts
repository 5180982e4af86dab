import { context, isSpanContextValid, trace } from "@opentelemetry/api";
import { type DestinationStream, type Logger, pino } from "pino";
import { CENSOR, exactRedactPaths, redactLine, serializeError } from "./redact.js";

export type { Logger } from "pino";

export interface CreateLoggerOptions {
  /** The service name, carried on every line. */
  service: string;
  level?: string;
  /** Where lines go; stdout when omitted. Tests pass a stream to capture lines. */
  destination?: DestinationStream;
}

/** JSON lines on stdout with secrets redacted, the shape every service logs in. */
export function createLogger(options: CreateLoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? "info",
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Exact paths here (they reach child bindings too), any depth in the log formatter.
      redact: { paths: exactRedactPaths, censor: CENSOR },
      serializers: { err: serializeError, error: serializeError },
      formatters: { level: (label) => ({ level: label }), log: redactLine },
      mixin: traceIds,
    },
    options.destination,
  );
}

/**
 * The active span's ids on every line logged inside it (trace_id, span_id), so a line leads to its
 * trace and back; nothing outside a span, or while tracing is off (the API then has no context).
 */
// A fresh object each time: pino merges the line's own fields into what the mixin returns.
export function traceIds(): object {
  const span = trace.getSpan(context.active());
  if (span === undefined) return {};
  const ids = span.spanContext();
  return isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
}
