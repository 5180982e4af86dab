import {
  type Metadata,
  type ServerUnaryCall,
  type ServiceDefinition,
  type sendUnaryData,
  status,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import {
  type Context,
  context,
  extractContext,
  holdContext,
  injectTraceparent,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  tracer,
} from "@platform/telemetry";

// Spans of the gRPC hops (OpenTelemetry's RPC conventions): named `package.Service/Method`, the
// W3C traceparent in each call's own metadata. A batched call's metadata travels inside the
// batch, so every call of a batch keeps its own span and its own parent on both sides.
// A trace is decided at its edge: a call made outside any trace (its edge sampled it out, see
// @platform/telemetry's sampledContextManager) goes untraced, and a server call without a
// traceparent makes no span, rather than either starting a trace of its own.

const RPC_SYSTEM = { "rpc.system.name": "grpc" } as const;

/** `/platform.data.v1.AccountsService/GetBalanceLatest` → `platform.data.v1.AccountsService/GetBalanceLatest`. */
function spanNameOf(path: string): string {
  return path.startsWith("/") ? path.slice(1) : path;
}

/**
 * The caller's span: named by the traceparent the caller put in the call's metadata (the
 * gateway carries its requests' spans explicitly), else the active one.
 */
function parentOf(metadata: Metadata): Context {
  const traceparent = metadata.get("traceparent")[0];
  return typeof traceparent === "string" ? extractContext({ traceparent }, ROOT_CONTEXT) : context.active();
}

/**
 * A client span for one unary call (all its attempts), child of the caller's span; the call goes
 * out with a copy of its metadata carrying this span's traceparent instead.
 */
export function tracedClientCall<T extends { ok: boolean; status?: { code: number; details: string } }>(
  path: string,
  metadata: Metadata,
  run: (metadata: Metadata, span: Span | undefined) => Promise<T>,
): Promise<T> {
  const parent = parentOf(metadata);
  // Untraced (nearly every call at a low sampling ratio): the call itself, no wrapper promise.
  if (trace.getSpan(parent) === undefined) return run(metadata, undefined);
  return callInSpan(path, metadata, parent, run);
}

async function callInSpan<T extends { ok: boolean; status?: { code: number; details: string } }>(
  path: string,
  metadata: Metadata,
  parent: Context,
  run: (metadata: Metadata, span: Span | undefined) => Promise<T>,
): Promise<T> {
  const span = tracer().startSpan(
    spanNameOf(path),
    { kind: SpanKind.CLIENT, attributes: { ...RPC_SYSTEM, "rpc.method": spanNameOf(path) } },
    parent,
  );
  const traced = metadata.clone();
  const headers: Record<string, string> = {};
  injectTraceparent(headers, trace.setSpan(parent, span));
  for (const key in headers) traced.set(key, headers[key]!);
  try {
    const result = await run(traced, span);
    const code = result.ok ? status.OK : (result.status?.code ?? status.UNKNOWN);
    span.setAttribute("rpc.grpc.status_code", code);
    if (!result.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: result.status?.details ?? "" });
    return result;
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * A span for one RunCalls stream: its own root (the calls it carries belong to many requests'
 * traces), linked to each call's span; each call's span says it travelled in a batch of that size.
 */
export function batchSpan(calls: ReadonlyArray<{ span?: Span | undefined }>): Span | undefined {
  const links: Link[] = [];
  for (const call of calls) {
    if (call.span === undefined) continue;
    call.span.setAttribute("rpc.batch.size", calls.length);
    links.push({ context: call.span.spanContext() });
  }
  if (links.length === 0) return undefined;
  return tracer().startSpan(
    "platform.rpc.v1.CallBatchService/RunCalls",
    { kind: SpanKind.CLIENT, attributes: { ...RPC_SYSTEM, "rpc.batch.size": calls.length }, links },
    ROOT_CONTEXT,
  );
}

type UnaryImplementation = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;

/**
 * Wraps every unary method so each call, alone or out of a batch (the batch service runs the
 * same wrapped implementations), runs in a server span whose parent is the call's own
 * traceparent; what the handler awaits (Redis reads) nests under it.
 */
export function traceServerCalls(
  definition: ServiceDefinition,
  implementation: UntypedServiceImplementation,
): UntypedServiceImplementation {
  const wrapped: UntypedServiceImplementation = { ...implementation };
  for (const [method, handler] of Object.entries(implementation)) {
    const spec = definition[method];
    if (!spec || spec.requestStream || spec.responseStream || typeof handler !== "function") continue;
    const unary = handler as UnaryImplementation;
    const name = spanNameOf(spec.path);
    wrapped[method] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      const traceparent = call.metadata.get("traceparent")[0];
      if (typeof traceparent !== "string") return unary(call, callback);
      const tracestate = call.metadata.get("tracestate")[0];
      const parent = extractContext(
        typeof tracestate === "string" ? { traceparent, tracestate } : { traceparent },
        ROOT_CONTEXT,
      );
      const span = tracer().startSpan(
        name,
        { kind: SpanKind.SERVER, attributes: { ...RPC_SYSTEM, "rpc.method": name } },
        parent,
      );
      const active = trace.setSpan(parent, span);
      // The handler answers through the callback: a sampled call keeps its context until then.
      const release = holdContext(active);
      context.with(active, () =>
        unary(call, (error, value, trailer, flags) => {
          const code = error ? (error.code ?? status.UNKNOWN) : status.OK;
          span.setAttribute("rpc.grpc.status_code", code);
          if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error.details ?? "" });
          span.end();
          release();
          callback(error, value, trailer, flags);
        }),
      );
    };
  }
  return wrapped;
}
