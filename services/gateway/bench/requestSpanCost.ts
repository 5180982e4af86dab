// Development aid: what the gateway's request span adds to each request, in-process and without
// I/O: the listener wrapper (requestSpan.ts), the context's span and traceparent, and the access
// line's ids, with tracing off against on at a ratio (OTEL_TRACES_SAMPLER_ARG, 1 % by default;
// the sampled ones' spans go to an OTLP exporter whose endpoint refuses, as their export is
// measured by bench/data's BENCH_TRACING). The gateway spends 50–200 µs of CPU on a request.
//
//   cd services/gateway && npx tsx --conditions=@platform/source bench/requestSpanCost.ts [requests]
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { INVALID_TRACEID, startTracing } from "@platform/telemetry";
import { endRequestSpan, requestSpanOf, tracedListener, traceparentOf } from "../src/http/requestSpan.js";

const REQUESTS = Number(process.argv[2] ?? 1_000_000);
const RATIO = process.env.OTEL_TRACES_SAMPLER_ARG ?? "0.01";
let sink = 0;

/** What the gateway does with the span per request, besides serving it. */
function handle(request: IncomingMessage): void {
  const span = requestSpanOf(request);
  const traceparent = traceparentOf(span);
  if (span === undefined) return;
  const ids = span.spanContext();
  if (ids.traceId !== INVALID_TRACEID) sink += ids.traceId.length + ids.spanId.length + (traceparent ? 1 : 0);
  endRequestSpan(span, "GET", "/data/v1/coin/price/latest", 200);
}

function measure(label: string, listener: (request: IncomingMessage, response: ServerResponse) => void): void {
  for (let round = 1; round <= 3; round += 1) {
    const started = performance.now();
    for (let index = 0; index < REQUESTS; index += 1) {
      const request = { method: "GET", headers: { host: "api", authorization: "Bearer x" } } as IncomingMessage;
      const response = new EventEmitter() as unknown as ServerResponse;
      listener(request, response);
      response.emit("close");
    }
    const ns = ((performance.now() - started) * 1e6) / REQUESTS;
    process.stdout.write(`round ${round}  ${label.padEnd(24)} ${(ns / 1_000).toFixed(2)} µs a request\n`);
  }
}

measure("tracing off", handle);
const tracing = startTracing({
  service: "request-span-cost",
  env: {
    OTEL_TRACES_EXPORTER: "otlp",
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
    OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
    OTEL_TRACES_SAMPLER_ARG: RATIO,
  },
});
measure(`tracing on at ${RATIO}`, tracedListener(handle));
await tracing.shutdown();
process.stdout.write(`(${sink > 0 ? "ids read" : "no ids"})\n`);
