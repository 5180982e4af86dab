import { Metadata, makeGenericClientConstructor } from "@grpc/grpc-js";
import { createLogger } from "@platform/log";
import { inSpan, type ReadableSpan, SpanKind, startTestTracing, tracer } from "@platform/telemetry";
import { afterEach, describe, expect, it } from "vitest";
import { callUnary, createGrpcClient } from "./createClient.js";
import { jsonUnaryService } from "./jsonUnaryService.js";
import { startGrpcServer } from "./startGrpcServer.js";
import { unaryHandler } from "./unaryHandler.js";

// Every call of a batch keeps its own client span, parented to its own request's span, and its
// own server span, parented by the traceparent that travelled in that call's metadata entries.

const definition = jsonUnaryService({ echo: "/test.Echo/Echo" });
const EchoClient = makeGenericClientConstructor(definition, "test.Echo");
type EchoMethod = Parameters<typeof callUnary<{ text: string }, { text: string }>>[1];
const log = createLogger({ service: "grpc-tracing-test", level: "silent" });

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A traced echo server and a client of it; `call` sends one Echo with the given metadata. */
async function startEchoPair() {
  const tracing = startTestTracing("grpc");
  cleanups.push(() => tracing.shutdown());
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    services: [
      {
        name: "test.Echo",
        definition,
        implementation: {
          echo: unaryHandler<{ text: string }, { text: string }>(log, "Echo", async (request) => {
            await new Promise((resolve) => setTimeout(resolve, 2));
            // What the handler does (a Redis read, say) nests under the call's server span.
            tracer().startSpan(`work ${request.text}`).end();
            return { text: request.text };
          }),
        },
      },
    ],
  });
  server.setServing(true);
  cleanups.push(() => server.shutdown(100));
  const client = createGrpcClient(EchoClient, { target: `127.0.0.1:${server.port}`, deadlineMs: 2_000 });
  cleanups.push(() => client.close());
  const call = (text: string, metadata = new Metadata()) =>
    callUnary<{ text: string }, { text: string }>(client, client.echo as EchoMethod, { text }, metadata);
  await call("warm-up");
  tracing.exporter.reset();
  return { tracing, call };
}

describe("gRPC spans", () => {
  it("two calls in one batch keep their own client span, parent and server span", async () => {
    const { tracing, call } = await startEchoPair();

    // Two requests, each in its own trace, whose calls leave in the same turn: one RunCalls stream.
    const answers = await Promise.all(
      ["a", "b"].map((text) => inSpan(`request ${text}`, { kind: SpanKind.SERVER }, () => call(text))),
    );
    expect(answers.map((answer) => answer.text)).toEqual(["a", "b"]);
    // The batch's span ends when its stream closes, just after the last outcome arrived.
    await new Promise((resolve) => setTimeout(resolve, 50));

    const spans = tracing.exporter.getFinishedSpans();
    const named = (name: string, kind?: SpanKind): ReadableSpan => {
      const found = spans.filter((span) => span.name === name && (kind === undefined || span.kind === kind));
      expect(found, name).toHaveLength(1);
      return found[0]!;
    };
    const batch = named("platform.rpc.v1.CallBatchService/RunCalls");
    expect(batch.links).toHaveLength(2);
    for (const text of ["a", "b"]) {
      const request = named(`request ${text}`);
      const clientSpan = spans.find(
        (span) =>
          span.kind === SpanKind.CLIENT &&
          span.name === "test.Echo/Echo" &&
          span.parentSpanContext?.spanId === request.spanContext().spanId,
      );
      expect(clientSpan, `client span of ${text}`).toBeDefined();
      expect(clientSpan!.spanContext().traceId).toBe(request.spanContext().traceId);
      expect(clientSpan!.attributes["rpc.batch.size"]).toBe(2);
      expect(batch.links.map((link) => link.context.spanId)).toContain(clientSpan!.spanContext().spanId);
      const serverSpan = spans.find(
        (span) =>
          span.kind === SpanKind.SERVER &&
          span.name === "test.Echo/Echo" &&
          span.parentSpanContext?.spanId === clientSpan!.spanContext().spanId,
      );
      expect(serverSpan, `server span of ${text}`).toBeDefined();
      expect(serverSpan!.spanContext().traceId).toBe(request.spanContext().traceId);
      expect(serverSpan!.attributes["rpc.grpc.status_code"]).toBe(0);
      const work = named(`work ${text}`);
      expect(work.parentSpanContext?.spanId).toBe(serverSpan!.spanContext().spanId);
    }
  });

  it("takes a call's parent from the traceparent its caller put in the metadata; a call outside any trace goes untraced", async () => {
    const { tracing, call } = await startEchoPair();
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const requestSpanId = "00f067aa0ba902b7";
    const metadata = new Metadata();
    metadata.set("traceparent", `00-${traceId}-${requestSpanId}-01`);
    await call("explicit", metadata);
    await call("untraced");
    const spans = tracing.exporter.getFinishedSpans();
    const clientSpan = spans.find((span) => span.kind === SpanKind.CLIENT && span.name === "test.Echo/Echo");
    expect(clientSpan?.spanContext().traceId).toBe(traceId);
    expect(clientSpan?.parentSpanContext?.spanId).toBe(requestSpanId);
    const serverSpan = spans.find((span) => span.kind === SpanKind.SERVER);
    expect(serverSpan?.parentSpanContext?.spanId).toBe(clientSpan?.spanContext().spanId);
    // Only the explicit call made gRPC spans; the untraced call's work is nobody's child.
    expect(spans.filter((span) => span.name === "test.Echo/Echo")).toHaveLength(2);
    expect(spans.find((span) => span.name === "work untraced")?.parentSpanContext).toBeUndefined();
  });
});
