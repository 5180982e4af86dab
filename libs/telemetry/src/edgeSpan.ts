import { randomFillSync } from "node:crypto";
import {
  INVALID_SPANID,
  INVALID_TRACEID,
  SamplingDecision,
  trace,
  TraceFlags,
  type Context,
  type Link,
  type Span,
  type SpanKind,
} from "@opentelemetry/api";
import type { IdGenerator, Sampler } from "@opentelemetry/sdk-trace";
import { tracer } from "./tracer.js";

/**
 * Starts the span of a unit of work that enters the process (an HTTP request): the first span of
 * its trace here, whose sampling decides what the hops below it trace.
 *
 * Why not `tracer().startSpan` alone: at a 1 % ratio, 99 edge spans in 100 are sampled out, and the
 * SDK still does for each what only a recorded span needs (attribute cleaning, span metrics, debug
 * log look-ups, id validation). On the gateway's hottest requests, answered from memory in about
 * 50 µs of CPU, that was 1.2 µs a request (services/gateway/bench/requestSpanCost.ts). Here a
 * span without a parent gets its ids and the configured sampler's decision first; one sampled out
 * is only its ids (a non-recording span, which still names the trace in the access line); one
 * sampled in is made by the SDK with those same ids, so its decision is the same. A span with a
 * parent (a caller's traceparent) goes to the SDK as it is: its parent decides.
 */
export function startEdgeSpan(name: string, kind: SpanKind, parent: Context): Span {
  if (edge === undefined || trace.getSpan(parent) !== undefined) return tracer().startSpan(name, { kind }, parent);
  const traceId = randomId(16);
  const spanId = randomId(8);
  const { decision } = edge.sampler.shouldSample(parent, traceId, name, kind, NO_ATTRIBUTES, NO_LINKS);
  if (decision === SamplingDecision.NOT_RECORD)
    return trace.wrapSpanContext({ traceId, spanId, traceFlags: TraceFlags.NONE });
  edge.ids.prime(traceId, spanId);
  return tracer().startSpan(name, { kind }, parent);
}

const NO_ATTRIBUTES = Object.freeze({});
const NO_LINKS: Link[] = [];

let edge: { sampler: Sampler; ids: EdgeIdGenerator } | undefined;

/** Set by startTracing (the provider's sampler and id generator), cleared by its shutdown. */
export function useEdgeSampling(state: { sampler: Sampler; ids: EdgeIdGenerator } | undefined): void {
  edge = state;
}

/**
 * The provider's id generator: random ids (from a pooled buffer filled by the CSPRNG), or, once,
 * the ids `startEdgeSpan` already drew and sampled on.
 */
export class EdgeIdGenerator implements IdGenerator {
  #traceId: string | undefined;
  #spanId: string | undefined;

  /** The next span the SDK starts takes these ids. */
  prime(traceId: string, spanId: string): void {
    this.#traceId = traceId;
    this.#spanId = spanId;
  }

  generateTraceId(): string {
    const primed = this.#traceId;
    if (primed === undefined) return randomId(16);
    this.#traceId = undefined;
    return primed;
  }

  generateSpanId(): string {
    const primed = this.#spanId;
    if (primed === undefined) return randomId(8);
    this.#spanId = undefined;
    return primed;
  }
}

// One CSPRNG call per 256 trace ids rather than one per id; the bytes are used once each.
const POOL = Buffer.allocUnsafe(4_096);
let used = POOL.length;

/** `bytes` random bytes as lower-case hex, never all zeros (an invalid id). */
export function randomId(bytes: 8 | 16): string {
  if (used + bytes > POOL.length) {
    randomFillSync(POOL);
    used = 0;
  }
  const id = POOL.toString("hex", used, used + bytes);
  used += bytes;
  if (id === INVALID_TRACEID || id === INVALID_SPANID) return randomId(bytes);
  return id;
}
