export {
  parseTracingConfig,
  type OtlpProtocol,
  type SamplerKind,
  type TracesExporterKind,
  type TracingConfig,
} from "./tracingConfig.js";
export {
  samplerOf,
  startTestTracing,
  startTracing,
  startTracingOrExit,
  type StartTracingOptions,
  type Tracing,
} from "./startTracing.js";
export {
  activeSpan,
  failSpan,
  inSpan,
  isTracingEnabled,
  SpanKind,
  SpanStatusCode,
  tracer,
  type SpanOptions,
} from "./tracer.js";
export { holdContext, noSampledContext, SampledContextManager } from "./sampledContextManager.js";
export { startEdgeSpan } from "./edgeSpan.js";
export { currentTraceparent, extractContext, injectTraceparent, spanContextOf } from "./propagation.js";
export {
  context,
  INVALID_TRACEID,
  isSpanContextValid,
  trace,
  ROOT_CONTEXT,
  type Context,
  type Link,
  type Span,
  type SpanContext,
} from "@opentelemetry/api";
export { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace";
