import { ConfigError } from "@platform/config";

/** Where spans go: `none` is off (the API's no-op tracer, zero cost), the default everywhere. */
export type TracesExporterKind = "otlp" | "console" | "none";
export type OtlpProtocol = "http/protobuf" | "http/json";
export type SamplerKind =
  | "always_on"
  | "always_off"
  | "traceidratio"
  | "parentbased_always_on"
  | "parentbased_always_off"
  | "parentbased_traceidratio";

export interface TracingConfig {
  exporter: TracesExporterKind;
  serviceName: string;
  /** The full URL spans are POSTed to (OTLP/HTTP). */
  otlpUrl: string;
  protocol: OtlpProtocol;
  sampler: SamplerKind;
  /** The ratio of the ratio samplers, in [0, 1]. */
  samplerRatio: number;
  /** How long spans wait to be exported in a batch (OTEL_BSP_SCHEDULE_DELAY, 5 s). */
  scheduleDelayMs: number;
}

const EXPORTERS: readonly TracesExporterKind[] = ["otlp", "console", "none"];
const PROTOCOLS: readonly OtlpProtocol[] = ["http/protobuf", "http/json"];
/** Every OTEL_TRACES_SAMPLER value taken. */
export const SAMPLERS: readonly SamplerKind[] = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
];
const DEFAULT_ENDPOINT = "http://localhost:4318";

/**
 * The tracing settings from the standard OpenTelemetry variables (the SDK's own names, so an
 * operator's usual manifests apply). A bad value throws a ConfigError naming the variable: a
 * typo in a sampler must not silently trace nothing, or everything.
 */
export function parseTracingConfig(service: string, env: NodeJS.ProcessEnv = process.env): TracingConfig {
  const exporter = oneOf("OTEL_TRACES_EXPORTER", variable(env, "OTEL_TRACES_EXPORTER") ?? "none", EXPORTERS);
  const protocol = oneOf(
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    variable(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ??
      variable(env, "OTEL_EXPORTER_OTLP_PROTOCOL") ??
      "http/protobuf",
    PROTOCOLS,
    "grpc is not supported here: use http/protobuf or http/json",
  );
  const sampler = oneOf(
    "OTEL_TRACES_SAMPLER",
    variable(env, "OTEL_TRACES_SAMPLER") ?? "parentbased_always_on",
    SAMPLERS,
  );
  return {
    exporter,
    serviceName: variable(env, "OTEL_SERVICE_NAME") ?? service,
    otlpUrl: otlpUrlOf(env),
    protocol,
    sampler,
    samplerRatio: ratioOf(sampler, variable(env, "OTEL_TRACES_SAMPLER_ARG")),
    scheduleDelayMs: delayOf(variable(env, "OTEL_BSP_SCHEDULE_DELAY")),
  };
}

function variable(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function oneOf<T extends string>(variable: string, value: string, allowed: readonly T[], hint?: string): T {
  const lower = value.toLowerCase();
  if ((allowed as readonly string[]).includes(lower)) return lower as T;
  throw new ConfigError(variable, `"${value}" is not one of ${allowed.join(", ")}${hint ? ` (${hint})` : ""}`);
}

/** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is; OTEL_EXPORTER_OTLP_ENDPOINT with the signal's path. */
function otlpUrlOf(env: NodeJS.ProcessEnv): string {
  const traces = variable(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  if (traces !== undefined) return checkedUrl("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", traces);
  const base = checkedUrl(
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    variable(env, "OTEL_EXPORTER_OTLP_ENDPOINT") ?? DEFAULT_ENDPOINT,
  );
  return `${base.replace(/\/+$/, "")}/v1/traces`;
}

function checkedUrl(variable: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(variable, `"${value}" is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ConfigError(variable, `"${value}" must be an http or https URL`);
  return value;
}

function ratioOf(sampler: SamplerKind, arg: string | undefined): number {
  if (!sampler.endsWith("traceidratio")) return 1;
  if (arg === undefined) return 1;
  const ratio = Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
    throw new ConfigError("OTEL_TRACES_SAMPLER_ARG", `"${arg}" is not a ratio between 0 and 1`);
  return ratio;
}

function delayOf(value: string | undefined): number {
  if (value === undefined) return 5_000;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1 || ms > 600_000)
    throw new ConfigError("OTEL_BSP_SCHEDULE_DELAY", `"${value}" is not a number of milliseconds (1-600000)`);
  return ms;
}
