import { type MsgHdrs, headers as natsHeaders } from "@nats-io/transport-node";
import { activeSpan, context, injectTraceparent, isTracingEnabled, SpanKind, trace, tracer } from "@platform/telemetry";

/**
 * Inside a trace (a projection's commit), a signal's publish is a producer span, and the message
 * carries its `traceparent` in its NATS headers for whoever acts on it. Undefined (no headers, no
 * span) outside a trace and while tracing is off.
 */
export function signalHeaders(subject: string): MsgHdrs | undefined {
  if (!isTracingEnabled() || activeSpan() === undefined) return undefined;
  const parent = context.active();
  const span = tracer().startSpan(
    `publish ${subject}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        "messaging.system": "nats",
        "messaging.operation.type": "publish",
        "messaging.destination.name": subject,
      },
    },
    parent,
  );
  const carrier: Record<string, string> = {};
  injectTraceparent(carrier, trace.setSpan(parent, span));
  const headers = natsHeaders();
  for (const key in carrier) headers.set(key, carrier[key]!);
  // A NATS publish is a buffered write: the span marks the hand-off, not a round trip.
  span.end();
  return headers;
}
