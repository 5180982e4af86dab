import { context, SpanKind, trace } from "@opentelemetry/api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { currentTraceparent, extractContext, injectTraceparent, spanContextOf } from "./propagation.js";
import { startTestTracing, startTracing } from "./startTracing.js";
import { inSpan, isTracingEnabled, tracer } from "./tracer.js";

describe("traceparent helpers", () => {
  let tracing: ReturnType<typeof startTestTracing>;
  beforeEach(() => {
    tracing = startTestTracing();
  });
  afterEach(async () => {
    await tracing.shutdown();
  });

  it("carry a span's context through a plain headers record into a child in another 'process'", async () => {
    const headers: Record<string, string> = { "event-type": "BlockSeen" };
    await inSpan("produce", { kind: SpanKind.PRODUCER }, async () => {
      injectTraceparent(headers);
    });
    expect(headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const remote = extractContext(headers);
    await inSpan("consume", { kind: SpanKind.CONSUMER, parent: remote }, async () => undefined);
    const [produce, consume] = tracing.exporter.getFinishedSpans();
    expect(consume!.spanContext().traceId).toBe(produce!.spanContext().traceId);
    expect(consume!.parentSpanContext?.spanId).toBe(produce!.spanContext().spanId);
    expect(spanContextOf(headers.traceparent)?.spanId).toBe(produce!.spanContext().spanId);
  });

  it("write nothing outside a span and ignore a malformed traceparent", () => {
    const headers: Record<string, string> = {};
    injectTraceparent(headers);
    expect(headers).toEqual({});
    expect(currentTraceparent()).toBeUndefined();
    const base = context.active();
    expect(trace.getSpanContext(extractContext({ traceparent: "00-nothex-01" }, base))).toBeUndefined();
    expect(spanContextOf("garbage")).toBeUndefined();
  });

  it("keep the active span across awaits (AsyncLocalStorage) and mark a throw as an error", async () => {
    await expect(
      inSpan("outer", {}, async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        const child = tracer().startSpan("inner");
        child.end();
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    const [inner, outer] = tracing.exporter.getFinishedSpans();
    expect(inner!.parentSpanContext?.spanId).toBe(outer!.spanContext().spanId);
    expect(outer!.status.code).toBe(2);
  });
});

describe("startTracing", () => {
  it("registers nothing when OTEL_TRACES_EXPORTER is none (the default)", async () => {
    const tracing = startTracing({ service: "x", env: {} });
    expect(tracing.enabled).toBe(false);
    expect(isTracingEnabled()).toBe(false);
    const span = tracer().startSpan("ignored");
    expect(span.isRecording()).toBe(false);
    await tracing.shutdown();
  });

  it("samples at the configured ratio: always_off records nothing", async () => {
    const { InMemorySpanExporter } = await import("@opentelemetry/sdk-trace");
    const exporter = new InMemorySpanExporter();
    const tracing = startTracing({ service: "x", exporter, env: { OTEL_TRACES_SAMPLER: "always_off" } });
    await inSpan("dropped", {}, async () => undefined);
    expect(exporter.getFinishedSpans()).toEqual([]);
    await tracing.shutdown();
  });
});
