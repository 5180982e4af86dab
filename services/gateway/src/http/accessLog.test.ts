import { Writable } from "node:stream";
import { createLogger } from "@platform/log";
import { createMetricsRegistry } from "@platform/runtime";
import { SpanKind, spanContextOf, startEdgeSpan, startTracing, type Tracing } from "@platform/telemetry";
import { afterEach, describe, expect, it } from "vitest";
import { createAccessLog } from "./accessLog.js";
import type { GatewayContext } from "./requestContext.js";

const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";
let tracing: Tracing | undefined;
afterEach(async () => {
  await tracing?.shutdown();
  tracing = undefined;
});

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const log = createLogger({ service: "access-log-test", level, destination });
  const registry = createMetricsRegistry("access-log-test");
  return { lines, registry, accessLog: createAccessLog(log, registry) };
}

const contextWith = (span: GatewayContext["span"]): GatewayContext => ({
  requestId: "req-1",
  keyId: undefined,
  startedAt: process.hrtime.bigint(),
  span,
  traceparent: undefined,
  header: () => undefined,
  clientAddress: () => "127.0.0.1",
});

describe("access log", () => {
  it("names the trace of a request sampled in at this edge on its line, and none for one sampled out", async () => {
    tracing = startTracing({
      service: "access-log-test",
      env: { OTEL_TRACES_EXPORTER: "console", OTEL_TRACES_SAMPLER: "parentbased_always_on" },
    });
    const { lines, accessLog } = capture("info");
    // A caller's context is only a link: the line names this gateway's own trace, never the caller's.
    const span = startEdgeSpan("GET", SpanKind.SERVER, spanContextOf(`00-${CALLER_TRACE}-b7ad6b7169203331-01`));
    accessLog.record("GET", "/data/v1/coin/price/latest", 200, contextWith(span));
    await tracing.shutdown();
    tracing = startTracing({
      service: "access-log-test",
      env: {
        OTEL_TRACES_EXPORTER: "console",
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0",
      },
    });
    // Sampled out at this edge: no span, so no ids (the request id ties the request's lines).
    accessLog.record(
      "GET",
      "/data/v1/coin/price/latest",
      200,
      contextWith(startEdgeSpan("GET", SpanKind.SERVER, spanContextOf(`00-${CALLER_TRACE}-b7ad6b7169203331-01`))),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      msg: "request",
      requestId: "req-1",
      route: "/data/v1/coin/price/latest",
      status: 200,
      trace_id: span!.spanContext().traceId,
      span_id: span!.spanContext().spanId,
    });
    expect(lines[0]!.trace_id).not.toBe(CALLER_TRACE);
    expect(lines[1]).toMatchObject({ msg: "request", status: 200 });
    expect(lines[1]).not.toHaveProperty("trace_id");
  });

  it("at warn writes the failures only, and still counts every request", async () => {
    const { lines, registry, accessLog } = capture("warn");
    accessLog.record("GET", "/data/v1/coin/price/latest", 200, contextWith(undefined));
    accessLog.record("GET", "/data/v1/coin/price/latest", 503, contextWith(undefined));
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => [line.msg, line.status])).toEqual([["request failed", 503]]);
    expect(lines[0]).not.toHaveProperty("trace_id");
    const counted = (await registry.getSingleMetric("http_request_duration_seconds")!.get()).values.filter((value) =>
      String((value as { metricName?: string }).metricName).endsWith("_count"),
    );
    expect(counted.map((value) => [value.labels.status, value.value]).sort()).toEqual([
      ["200", 1],
      ["503", 1],
    ]);
  });
});
