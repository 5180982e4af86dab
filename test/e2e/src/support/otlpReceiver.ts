import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

/*
 * A minimal OTLP/HTTP trace receiver for end-to-end tests: the stack's services export to it
 * (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) and it keeps every span in memory, flattened with the
 * name of the service that sent it. JSON keeps decoding trivial: hex ids, nanosecond strings.
 */

export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
}

export interface OtlpReceiver {
  /** Where OTEL_EXPORTER_OTLP_ENDPOINT points (the receiver takes POST /v1/traces). */
  endpoint: string;
  spans(): readonly ReceivedSpan[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpKeyValue {
  key: string;
  value?: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: OtlpKeyValue[];
  links?: { traceId: string; spanId: string }[];
}
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      try {
        let body = Buffer.concat(chunks);
        if (request.headers["content-encoding"] === "gzip") body = gunzipSync(body);
        received.push(...spansOf(JSON.parse(body.toString("utf8")) as OtlpRequest));
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      } catch {
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function spansOf(request: OtlpRequest): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    const service = String(resource["service.name"] ?? "");
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        spans.push({
          service,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? "",
          name: span.name,
          kind: span.kind,
          startNs: BigInt(span.startTimeUnixNano),
          endNs: BigInt(span.endTimeUnixNano),
          attributes: attributesOf(span.attributes),
          links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
        });
      }
    }
  }
  return spans;
}

function attributesOf(entries: OtlpKeyValue[] | undefined): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  for (const { key, value } of entries ?? []) {
    if (value === undefined) continue;
    if (value.stringValue !== undefined) attributes[key] = value.stringValue;
    else if (value.intValue !== undefined) attributes[key] = Number(value.intValue);
    else if (value.doubleValue !== undefined) attributes[key] = value.doubleValue;
    else if (value.boolValue !== undefined) attributes[key] = value.boolValue;
  }
  return attributes;
}

/** The OTEL_* variables that make a service export every span to the receiver, flushed every 200 ms. */
export function tracingEnv(receiver: OtlpReceiver): Record<string, string> {
  return {
    OTEL_TRACES_EXPORTER: "otlp",
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_TRACES_SAMPLER: "always_on",
    OTEL_BSP_SCHEDULE_DELAY: "200",
  };
}
