export {
  type Context,
  context,
  INVALID_TRACEID,
  isSpanContextValid,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  trace,
} from "@opentelemetry/api";
export { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace";
export { startEdgeSpan } from "./edgeSpan.js";
export { currentTraceparent, extractContext, injectTraceparent, spanContextOf } from "./propagation.js";
export { holdContext, noSampledContext, SampledContextManager } from "./sampledContextManager.js";
export {
  type StartTracingOptions,
  samplerOf,
  startTestTracing,
  startTracing,
  startTracingOrExit,
  type Tracing,
} from "./startTracing.js";
export {
  activeSpan,
  failSpan,
  inSpan,
  isTracingEnabled,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
  tracer,
} from "./tracer.js";
export {
  type OtlpProtocol,
  parseTracingConfig,
  type SamplerKind,
  type TracesExporterKind,
  type TracingConfig,
} from "./tracingConfig.js";
