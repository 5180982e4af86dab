import { ROOT_CONTEXT, SamplingDecision, SpanKind, trace, TraceFlags } from "@opentelemetry/api";
import { InMemorySpanExporter, TraceIdRatioBasedSampler } from "@opentelemetry/sdk-trace";
import { afterEach, describe, expect, it } from "vitest";
import { randomId, startEdgeSpan } from "./edgeSpan.js";
import { extractContext } from "./propagation.js";
import { noSampledContext } from "./sampledContextManager.js";
import { startTracing, type Tracing } from "./startTracing.js";

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
  it("records exactly the spans the configured ratio sampler keeps, under the ids it decided on", async () => {
    const exporter = traceAt("parentbased_traceidratio", "0.5");
    const reference = new TraceIdRatioBasedSampler(0.5);
    let recorded = 0;
    for (let index = 0; index < 400; index += 1) {
      const span = startEdgeSpan("GET", SpanKind.SERVER, ROOT_CONTEXT);
      const { traceId, spanId, traceFlags } = span.spanContext();
      const kept = reference.shouldSample(ROOT_CONTEXT, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED;
      expect(span.isRecording()).toBe(kept);
      expect(traceFlags).toBe(kept ? TraceFlags.SAMPLED : TraceFlags.NONE);
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(spanId).toMatch(/^[0-9a-f]{16}$/);
      if (kept) recorded += 1;
      span.end();
    }
    // About half, and every recorded one exported with the ids the access line would show.
    expect(recorded).toBeGreaterThan(120);
    expect(recorded).toBeLessThan(280);
    await tracing!.flush();
    expect(exporter.getFinishedSpans()).toHaveLength(recorded);
  });

  it("gives a span sampled out ids of its own, which name no recorded span", () => {
    const exporter = traceAt("traceidratio", "0");
    const first = startEdgeSpan("GET", SpanKind.SERVER, ROOT_CONTEXT);
    const second = startEdgeSpan("GET", SpanKind.SERVER, ROOT_CONTEXT);
    expect(first.isRecording()).toBe(false);
    expect(first.spanContext().traceId).not.toBe(second.spanContext().traceId);
    // A later span the SDK starts itself draws fresh ids: nothing was left primed.
    const inner = trace.getTracer("t").startSpan("inner", {}, ROOT_CONTEXT);
    expect(inner.spanContext().traceId).not.toBe(first.spanContext().traceId);
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });

  it("follows a caller's traceparent: its trace and its sampled flag", () => {
    traceAt("parentbased_traceidratio", "0");
    const sampled = extractContext(
      { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
      ROOT_CONTEXT,
    );
    const child = startEdgeSpan("GET", SpanKind.SERVER, sampled);
    expect(child.isRecording()).toBe(true);
    expect(child.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    child.end();
    const notSampled = extractContext(
      { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00" },
      ROOT_CONTEXT,
    );
    expect(startEdgeSpan("GET", SpanKind.SERVER, notSampled).isRecording()).toBe(false);
  });

  it("is the API's no-op span while tracing is off", () => {
    const span = startEdgeSpan("GET", SpanKind.SERVER, ROOT_CONTEXT);
    expect(span.isRecording()).toBe(false);
    expect(trace.isSpanContextValid(span.spanContext())).toBe(false);
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
    const span = startEdgeSpan("GET", SpanKind.SERVER, ROOT_CONTEXT);
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
