import { randomBytes } from "node:crypto";
import { ROOT_CONTEXT, SamplingDecision, SpanKind, TraceFlags, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, TraceIdRatioBasedSampler } from "@opentelemetry/sdk-trace";
import { afterEach, describe, expect, it } from "vitest";
import { randomId, rootDecisionOf, startEdgeSpan } from "./edgeSpan.js";
import { spanContextOf } from "./propagation.js";
import { noSampledContext } from "./sampledContextManager.js";
import { samplerOf, startTracing, type Tracing } from "./startTracing.js";
import { SAMPLERS } from "./tracingConfig.js";

let tracing: Tracing | undefined;
afterEach(async () => {
  await tracing?.shutdown();
  tracing = undefined;
});

function traceAt(sampler: string, ratio?: string): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  tracing = startTracing({
    service: "edge-span-test",
    exporter,
    env: { OTEL_TRACES_SAMPLER: sampler, ...(ratio === undefined ? {} : { OTEL_TRACES_SAMPLER_ARG: ratio }) },
  });
  return exporter;
}

describe("startEdgeSpan", () => {
  it("makes a recorded span for about the configured ratio of new traces, and none for the rest", async () => {
    const exporter = traceAt("parentbased_traceidratio", "0.5");
    const reference = new TraceIdRatioBasedSampler(0.5);
    let recorded = 0;
    for (let index = 0; index < 400; index += 1) {
      const span = startEdgeSpan("GET", SpanKind.SERVER);
      if (span === undefined) continue;
      const { traceId, spanId, traceFlags } = span.spanContext();
      // Made by the SDK under the ids decided on: its own sampler agrees.
      expect(span.isRecording()).toBe(true);
      expect(traceFlags).toBe(TraceFlags.SAMPLED);
      expect(reference.shouldSample(ROOT_CONTEXT, traceId).decision).toBe(SamplingDecision.RECORD_AND_SAMPLED);
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(spanId).toMatch(/^[0-9a-f]{16}$/);
      recorded += 1;
      span.end();
    }
    expect(recorded).toBeGreaterThan(120);
    expect(recorded).toBeLessThan(280);
    await tracing!.flush();
    expect(exporter.getFinishedSpans()).toHaveLength(recorded);
  });

  it("starts nothing for a new trace sampled out, and leaves the SDK's next ids its own", () => {
    const exporter = traceAt("traceidratio", "0");
    expect(startEdgeSpan("GET", SpanKind.SERVER)).toBeUndefined();
    const inner = trace.getTracer("t").startSpan("inner", {}, ROOT_CONTEXT);
    expect(inner.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });

  it("decides by its own sampler whatever a caller's traceparent says, keeping the caller's context only as a link", async () => {
    const caller = (flags: "00" | "01") =>
      spanContextOf(`00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-${flags}`, "vendor=opaque")!;
    // Sampled out here: a caller's sampled flag does not bring a span back.
    traceAt("parentbased_traceidratio", "0");
    expect(startEdgeSpan("GET", SpanKind.SERVER, caller("01"))).toBeUndefined();
    await tracing!.shutdown();
    // Sampled in here: a trace of our own, even for a caller that sampled its own trace out.
    const exporter = traceAt("parentbased_traceidratio", "1");
    const span = startEdgeSpan("GET", SpanKind.SERVER, caller("00"))!;
    expect(span.isRecording()).toBe(true);
    expect(span.spanContext().traceId).not.toBe("0af7651916cd43dd8448eb211c80319c");
    span.end();
    const [ended] = exporter.getFinishedSpans();
    expect(ended!.parentSpanContext).toBeUndefined();
    expect(ended!.links.map((link) => link.context)).toEqual([
      { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 0, isRemote: true },
    ]);
    // A malformed or absent context is no link.
    const lone = startEdgeSpan("GET", SpanKind.SERVER, spanContextOf("00-nothex-01"))!;
    lone.end();
    expect(exporter.getFinishedSpans()[1]!.links).toEqual([]);
  });

  it("starts nothing while tracing is off", () => {
    expect(startEdgeSpan("GET", SpanKind.SERVER)).toBeUndefined();
  });
});

describe("rootDecisionOf", () => {
  it("decides every new trace as the SDK's sampler of the same kind does", () => {
    for (const kind of SAMPLERS)
      for (const ratio of [0, 0.01, 0.25, 0.5, 1]) {
        const mine = rootDecisionOf(kind, ratio);
        const sdk = samplerOf(kind, ratio);
        for (let index = 0; index < 2_000; index += 1) {
          const bytes = randomBytes(16);
          const expected =
            sdk.shouldSample(ROOT_CONTEXT, bytes.toString("hex"), "GET", SpanKind.SERVER, {}, []).decision ===
            SamplingDecision.RECORD_AND_SAMPLED;
          if (mine(bytes, 0) !== expected) throw new Error(`${kind} at ${ratio} differs on ${bytes.toString("hex")}`);
        }
      }
  });

  it("agrees at the ratio's bound, where a word's sign bit and rounding could part them", () => {
    const sdk = new TraceIdRatioBasedSampler(0.5);
    const mine = rootDecisionOf("traceidratio", 0.5);
    for (const hex of [
      "7fffffff000000000000000000000000",
      "80000000000000000000000000000000",
      "7ffffffe000000000000000000000001",
      "ffffffffffffffffffffffffffffffff",
      "00000000000000000000000000000001",
    ]) {
      const expected = sdk.shouldSample(ROOT_CONTEXT, hex).decision === SamplingDecision.RECORD_AND_SAMPLED;
      expect([hex, mine(Buffer.from(hex, "hex"), 0)]).toEqual([hex, expected]);
    }
  });
});

describe("randomId", () => {
  it("draws distinct lower-case hex ids of the asked length across pool refills", () => {
    const ids = new Set<string>();
    for (let index = 0; index < 2_000; index += 1) ids.add(randomId(16));
    expect(ids.size).toBe(2_000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(randomId(8)).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe("noSampledContext", () => {
  it("says so while nothing sampled is in flight, and not while a sampled body runs", async () => {
    traceAt("always_on");
    expect(noSampledContext()).toBe(true);
    const span = startEdgeSpan("GET", SpanKind.SERVER)!;
    const during = await trace
      .getTracer("t")
      .startActiveSpan("work", {}, trace.setSpan(ROOT_CONTEXT, span), async (inner) => {
        await Promise.resolve();
        inner.end();
        return noSampledContext();
      });
    expect(during).toBe(false);
    expect(noSampledContext()).toBe(true);
    span.end();
  });
});
