import { context, propagation, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter as OtlpJsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OtlpProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  InMemorySpanExporter,
  ParentBasedSampler,
  type Sampler,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { ConfigError } from "@platform/config";
import { EdgeIdGenerator, rootDecisionOf, useEdgeSampling } from "./edgeSpan.js";
import { SampledContextManager, useSampledContextManager } from "./sampledContextManager.js";
import { setTracingEnabled } from "./tracer.js";
import { parseTracingConfig, type SamplerKind, type TracingConfig } from "./tracingConfig.js";

export interface StartTracingOptions {
  /** The service's name; OTEL_SERVICE_NAME overrides it. */
  service: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Spans go here instead of where the variables say, each as soon as it ends (tests: an
   * InMemorySpanExporter). Tracing is then on whatever OTEL_TRACES_EXPORTER says.
   */
  exporter?: SpanExporter;
}

export interface Tracing {
  readonly enabled: boolean;
  readonly config: TracingConfig;
  /** Sends the spans still queued. */
  flush(): Promise<void>;
  /** Flushes, stops the exporter and unregisters the globals (a later startTracing starts afresh). */
  shutdown(): Promise<void>;
}

/**
 * Sets up tracing for a process from the standard OTEL_* variables (tracingConfig.ts). Off by
 * default: nothing is registered and the API's no-op tracer answers every call, so the spans in
 * the adapters cost a function call. On: W3C trace context propagation, sampled spans kept across
 * awaits (sampledContextManager.ts: the rest stays untraced below the edge that sampled it out), a batch span processor exporting over OTLP/HTTP, flushed by
 * `shutdown` (every service lists it in its stops). Throws a ConfigError naming the variable on
 * a bad value.
 */
export function startTracing(options: StartTracingOptions): Tracing {
  const config = parseTracingConfig(options.service, options.env);
  const processor = processorOf(config, options.exporter);
  if (processor === undefined) {
    return { enabled: false, config, flush: async () => undefined, shutdown: async () => undefined };
  }
  const ids = new EdgeIdGenerator();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName }),
    sampler: samplerOf(config.sampler, config.samplerRatio),
    idGenerator: ids,
    spanProcessors: [processor],
  });
  const contextManager = new SampledContextManager();
  context.setGlobalContextManager(contextManager.enable());
  useSampledContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  useEdgeSampling({ sampledRoot: rootDecisionOf(config.sampler, config.samplerRatio), ids });
  setTracingEnabled(true);
  let stopped: Promise<void> | undefined;
  return {
    enabled: true,
    config,
    flush: () => provider.forceFlush(),
    shutdown() {
      stopped ??= (async () => {
        setTracingEnabled(false);
        useEdgeSampling(undefined);
        await provider.shutdown().catch(() => undefined);
        trace.disable();
        propagation.disable();
        context.disable();
        useSampledContextManager(undefined);
      })();
      return stopped;
    },
  };
}

function processorOf(config: TracingConfig, exporter: SpanExporter | undefined): SpanProcessor | undefined {
  if (exporter !== undefined) return new SimpleSpanProcessor({ exporter });
  if (config.exporter === "none") return undefined;
  const scheduledDelayMillis = config.scheduleDelayMs;
  if (config.exporter === "console")
    return new BatchSpanProcessor({ exporter: new ConsoleSpanExporter(), scheduledDelayMillis });
  const url = config.otlpUrl;
  const otlp = config.protocol === "http/json" ? new OtlpJsonExporter({ url }) : new OtlpProtobufExporter({ url });
  return new BatchSpanProcessor({ exporter: otlp, scheduledDelayMillis });
}

export function samplerOf(kind: SamplerKind, ratio: number): Sampler {
  switch (kind) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(ratio);
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/** Tracing into memory, every span sampled (tests): read what ended with `exporter.getFinishedSpans()`. */
export function startTestTracing(service = "test"): Tracing & { exporter: InMemorySpanExporter } {
  const exporter = new InMemorySpanExporter();
  const tracing = startTracing({ service, exporter, env: { OTEL_TRACES_SAMPLER: "always_on" } });
  return Object.assign(tracing, { exporter });
}

/**
 * The entry-point form, the first thing a service's main does (before it opens connections, so
 * its Redis client and gRPC server are traced): a bad variable prints one line naming it and
 * exits with EX_CONFIG (78), as every other configuration error. `stop` is the shutdown step
 * that flushes the spans still queued; it goes last in the service's stops.
 */
export function startTracingOrExit(service: string): Tracing & { stop: { name: string; run: () => Promise<void> } } {
  let tracing: Tracing;
  try {
    tracing = startTracing({ service });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${service}: configuration error: ${error.message}\n`);
    process.exit(78);
  }
  return Object.assign(tracing, { stop: { name: "tracing", run: () => tracing.shutdown() } });
}
