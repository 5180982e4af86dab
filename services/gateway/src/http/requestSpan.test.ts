import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { defineRoute } from "@platform/http";
import { createLogger } from "@platform/log";
import { createMetricsRegistry, watchDependencies } from "@platform/runtime";
import { SpanKind, startTestTracing } from "@platform/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGatewayApp } from "../app.js";

// A server span per request, named by the route template (never the raw path), with the client's
// traceparent as a link, on both the GET fast path and express.
let server: Server;
let base: string;
let tracing: ReturnType<typeof startTestTracing>;
let handlerTraceparent: string | undefined;

const getRoute = defineRoute({
  method: "get",
  path: "/data/v1/accounts/:address/latest",
  operationId: "accountLatest",
  params: z.object({ address: z.string().max(64) }),
  docs: {
    summary: "account",
    tags: ["test"],
    success: { status: 200, description: "an account", contentType: "application/json", example: {} },
  },
  async handle({ params, context }) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    handlerTraceparent = context.traceparent;
    return { status: 200, body: { address: params.address } };
  },
});
const slowRoute = defineRoute({
  method: "get",
  path: "/data/v1/slow/:name",
  operationId: "slowThing",
  params: z.object({ name: z.string().max(64) }),
  docs: {
    summary: "slow",
    tags: ["test"],
    success: { status: 200, description: "slowly", contentType: "application/json", example: {} },
  },
  async handle() {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { status: 200, body: {} };
  },
});
const postRoute = defineRoute({
  method: "post",
  path: "/intents/v1/things/:id",
  operationId: "postThing",
  params: z.object({ id: z.string().max(64) }),
  body: z.object({}),
  docs: {
    summary: "thing",
    tags: ["test"],
    success: { status: 201, description: "a thing", contentType: "application/json", example: {} },
  },
  async handle() {
    return { status: 201, body: {} };
  },
});

beforeAll(async () => {
  tracing = startTestTracing("gateway");
  const readiness = watchDependencies([{ name: "redis", probe: async () => true }], 60_000);
  const app = createGatewayApp({
    log: createLogger({ service: "gateway-test", level: "silent" }),
    guard: async () => ({ keyId: "ak_test", headers: {} }),
    registry: createMetricsRegistry("gateway-test"),
    readiness,
    routes: [getRoute, slowRoute, postRoute],
    publicBaseUrl: "https://api.example",
    maxBodyBytes: 1024,
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  // The fetches' keep-alive sockets would hold close() for the gateway's keep-alive timeout (65 s).
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await tracing.shutdown();
});

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";

describe("the gateway's request spans", () => {
  it("a GET (fast path): named by its route template, a trace of its own linked to the client's traceparent, its traceparent in the handler's context", async () => {
    tracing.exporter.reset();
    const address = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";
    const response = await fetch(`${base}/data/v1/accounts/${address}/latest`, {
      headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
    });
    expect(response.status).toBe(200);
    const [span] = tracing.exporter.getFinishedSpans();
    expect(span!.name).toBe("GET /data/v1/accounts/:address/latest");
    expect(span!.name).not.toContain(address);
    expect(span!.kind).toBe(SpanKind.SERVER);
    // The client's context decides nothing at the public edge: it is a link (edgeSampling.test.ts).
    expect(span!.spanContext().traceId).not.toBe(TRACE_ID);
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([[TRACE_ID, PARENT_ID]]);
    expect(span!.attributes).toMatchObject({
      "http.request.method": "GET",
      "http.route": "/data/v1/accounts/:address/latest",
      "http.response.status_code": 200,
    });
    // Carried explicitly: the handler's calls go out with the request span's traceparent.
    expect(handlerTraceparent).toBe(`00-${span!.spanContext().traceId}-${span!.spanContext().spanId}-01`);
  });

  it("a POST (express) and an unknown path: their own traces, a 404 named as unmatched, without its path", async () => {
    tracing.exporter.reset();
    const created = await fetch(`${base}/intents/v1/things/t-1`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${base}/nowhere/secret-path`)).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const spans = tracing.exporter.getFinishedSpans();
    expect(spans.map((span) => span.name).sort()).toEqual(["GET (unmatched)", "POST /intents/v1/things/:id"]);
    expect(spans.find((span) => span.name === "GET (unmatched)")!.attributes["http.response.status_code"]).toBe(404);
    expect(spans[0]!.spanContext().traceId).not.toBe(spans[1]!.spanContext().traceId);
  });

  it("a request its client leaves before the answer: its span ends once, when the connection closes", async () => {
    tracing.exporter.reset();
    await fetch(`${base}/data/v1/slow/a`, { signal: AbortSignal.timeout(50) }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [closed, ...others] = tracing.exporter.getFinishedSpans();
    expect(others).toEqual([]);
    expect(closed!.name).toBe("GET");
    // The answer that comes after the close neither ends it again nor exports another span.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(tracing.exporter.getFinishedSpans()).toHaveLength(1);
  });
});
