import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { defineRoute } from "@platform/http";
import { createLogger } from "@platform/log";
import { createMetricsRegistry, watchDependencies } from "@platform/runtime";
import { InMemorySpanExporter, startTracing, type Tracing } from "@platform/telemetry";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGatewayApp } from "../app.js";
import { callMetadata } from "../backends.js";

// At the public edge the gateway's own sampler decides whether a request is traced: a caller's
// traceparent cannot force a trace (its sampled flag would otherwise make every request recorded
// and carried to every backend, at whatever ratio we run), its context is only a link, and its
// tracestate and baggage go nowhere: not downstream, not into the logs.

const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const CALLER_HEADERS = {
  traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
  tracestate: "vendor=caller-secret-state",
  baggage: "userId=caller-secret-baggage",
};

/** What the handler saw and would send downstream: the gRPC metadata of a call made for it. */
let downstream: Record<string, unknown> | undefined;
let tracing: Tracing | undefined;
let server: Server | undefined;

const route = defineRoute({
  method: "get",
  path: "/data/v1/things/:id",
  operationId: "getThing",
  params: z.object({ id: z.string().max(64) }),
  docs: {
    summary: "thing",
    tags: ["test"],
    success: { status: 200, description: "a thing", contentType: "application/json", example: {} },
  },
  async handle({ context }) {
    downstream = callMetadata(context, "ak_test").getMap();
    return { status: 200, body: {} };
  },
});

/** A gateway traced at `ratio` (parent-based, as production runs it), its spans and log lines kept. */
async function tracedGateway(ratio: string) {
  const exporter = new InMemorySpanExporter();
  tracing = startTracing({
    service: "gateway-edge-test",
    exporter,
    env: { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: ratio },
  });
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const log = createLogger({ service: "gateway-edge-test", level: "info", destination });
  const app = createGatewayApp({
    log,
    guard: async () => ({ keyId: "ak_test", headers: {} }),
    registry: createMetricsRegistry("gateway-edge-test"),
    readiness: watchDependencies([{ name: "redis", probe: async () => true }], 60_000),
    routes: [route],
    publicBaseUrl: "https://api.example",
    maxBodyBytes: 1024,
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server!.once("listening", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, exporter, lines };
}

afterEach(async () => {
  if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
  server = undefined;
  await tracing?.shutdown();
  tracing = undefined;
  downstream = undefined;
});

describe("the gateway's edge sampling", () => {
  it("at ratio 0, a caller's sampled traceparent records no span and sends no traceparent downstream", async () => {
    const { base, exporter, lines } = await tracedGateway("0");
    for (let index = 0; index < 5; index += 1) {
      const response = await fetch(`${base}/data/v1/things/${index}`, { headers: CALLER_HEADERS });
      expect(response.status).toBe(200);
      expect(downstream).toEqual({ "x-request-id": expect.any(String), "x-api-key-id": "ak_test" });
    }
    await tracing!.flush();
    expect(exporter.getFinishedSpans()).toEqual([]);
    const logged = lines.join("");
    expect(logged).toContain('"msg":"request"');
    for (const secret of [CALLER_TRACE, "caller-secret-state", "caller-secret-baggage"])
      expect(logged).not.toContain(secret);
  });

  it("at ratio 1, a new trace of its own with a link to the caller's context, and nothing of the caller's state carried on", async () => {
    const { base, exporter, lines } = await tracedGateway("1");
    const response = await fetch(`${base}/data/v1/things/1`, { headers: CALLER_HEADERS });
    expect(response.status).toBe(200);
    await tracing!.flush();
    const [span, ...others] = exporter.getFinishedSpans();
    expect(others).toEqual([]);
    const ours = span!.spanContext();
    expect(ours.traceId).not.toBe(CALLER_TRACE);
    expect(ours.traceState).toBeUndefined();
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.links).toHaveLength(1);
    const link = span!.links[0]!.context;
    expect([link.traceId, link.spanId]).toEqual([CALLER_TRACE, CALLER_SPAN]);
    // The caller's tracestate is not kept even on the link: it goes into no record of ours.
    expect(link.traceState).toBeUndefined();
    // Downstream: our trace and span, sampled; no tracestate, no baggage.
    expect(downstream).toEqual({
      "x-request-id": expect.any(String),
      "x-api-key-id": "ak_test",
      traceparent: `00-${ours.traceId}-${ours.spanId}-01`,
    });
    const logged = lines.join("");
    expect(logged).toContain(ours.traceId);
    for (const secret of [CALLER_TRACE, "caller-secret-state", "caller-secret-baggage"])
      expect(logged).not.toContain(secret);
  });
});
