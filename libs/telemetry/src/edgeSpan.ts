import { randomFillSync } from "node:crypto";
import { isSpanContextValid, ROOT_CONTEXT, type Span, type SpanContext, type SpanKind } from "@opentelemetry/api";
import type { IdGenerator } from "@opentelemetry/sdk-trace";
import { tracer } from "./tracer.js";
import type { SamplerKind } from "./tracingConfig.js";

/**
 * Starts the span of a unit of work that enters the process from outside (a public HTTP request),
 * the root of a trace of its own, or returns undefined when the configured sampler leaves that
 * trace out: then the work goes untraced, and so do the hops below it.
 *
 * The sampler's decision comes first, drawn from random bytes (`rootDecisionOf`); only a trace
 * sampled in gets ids in hex and its span from the SDK, primed with those ids, so the SDK's own
 * sampler decides the same. A caller's trace context (its `traceparent`) never decides: at a public
 * edge anyone can send `…-01`, and a parent-based sampler would record every such request and carry
 * the flag to every backend at any ratio (issue 32). It is kept only as a link of the span, with its
 * trace and span id and flags: never its tracestate, which is the caller's to fill.
 *
 * Why decide before any span: at a 1 % ratio, 99 edge spans in 100 are sampled out, and a span for
 * each (ids in hex, the SDK's sampler, a non-recording span) cost the gateway a share of its
 * throughput on reads it answers from memory (bench/data with BENCH_TRACING=1 measures it), for
 * ids that lead to no trace: nothing of a trace sampled out is recorded anywhere, and
 * the request id already ties its lines together.
 */
export function startEdgeSpan(name: string, kind: SpanKind, caller?: SpanContext): Span | undefined {
  if (edge === undefined) return undefined;
  const at = draw(24);
  if (!edge.sampledRoot(POOL, at)) return undefined;
  edge.ids.prime(hexOf(at, 16), hexOf(at + 16, 8));
  const link =
    caller !== undefined && isSpanContextValid(caller)
      ? [{ context: { traceId: caller.traceId, spanId: caller.spanId, traceFlags: caller.traceFlags, isRemote: true } }]
      : undefined;
  return tracer().startSpan(name, { kind, root: true, ...(link === undefined ? {} : { links: link }) }, ROOT_CONTEXT);
}

/** Whether a new trace whose id is the 16 bytes at `offset` is sampled. */
export type RootDecision = (bytes: Buffer, offset: number) => boolean;

let edge: { sampledRoot: RootDecision; ids: EdgeIdGenerator } | undefined;

/** Set by startTracing (the sampler's root decision and the provider's id generator), cleared by its shutdown. */
export function useEdgeSampling(state: { sampledRoot: RootDecision; ids: EdgeIdGenerator } | undefined): void {
  edge = state;
}

/**
 * What the configured sampler (startTracing's samplerOf) decides for a trace without a parent, as
 * a function of its id's bytes: the ratio samplers keep an id when the XOR of its four big-endian
 * 32-bit words is below ratio × 2³² − 1 (the SDK's TraceIdRatioBasedSampler, which reads the same
 * words from the hex); a parent-based sampler asks its root sampler. edgeSpan.test.ts checks every
 * kind against the SDK's samplers.
 */
export function rootDecisionOf(kind: SamplerKind, ratio: number): RootDecision {
  switch (kind) {
    case "always_on":
    case "parentbased_always_on":
      return () => true;
    case "always_off":
    case "parentbased_always_off":
      return () => false;
    case "traceidratio":
    case "parentbased_traceidratio": {
      const bounded = Number.isNaN(ratio) ? 0 : Math.min(1, Math.max(0, ratio));
      const upperBound = bounded === 1 ? 2 ** 32 : Math.floor(bounded * 0xffffffff);
      return (bytes, offset) => {
        const accumulated =
          (bytes.readUInt32BE(offset) ^
            bytes.readUInt32BE(offset + 4) ^
            bytes.readUInt32BE(offset + 8) ^
            bytes.readUInt32BE(offset + 12)) >>>
          0;
        return accumulated < upperBound;
      };
    }
  }
}

/**
 * The provider's id generator: random ids from the pool, or, once, the ids `startEdgeSpan`
 * already drew and decided on.
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

// One CSPRNG call per 170 edge decisions rather than one each; every byte is used once.
const POOL = Buffer.allocUnsafe(4_096);
let used = POOL.length;

/** The offset of `bytes` fresh random bytes in the pool. */
function draw(bytes: number): number {
  if (used + bytes > POOL.length) {
    randomFillSync(POOL);
    used = 0;
  }
  const at = used;
  used += bytes;
  return at;
}

/** The pool's `bytes` bytes at `offset` as lower-case hex; an all-zero id (invalid) gets a last byte of 1, as the SDK's own generator does. */
function hexOf(offset: number, bytes: number): string {
  let zero = true;
  for (let index = offset; index < offset + bytes && zero; index += 1) zero = POOL[index] === 0;
  if (zero) POOL[offset + bytes - 1] = 1;
  return POOL.toString("hex", offset, offset + bytes);
}

/** `bytes` random bytes as lower-case hex, never all zeros (an invalid id). */
export function randomId(bytes: 8 | 16): string {
  return hexOf(draw(bytes), bytes);
}
