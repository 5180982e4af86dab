import { SERVICE_ORDER, type ServiceName } from "./serviceProcesses.js";

/**
 * The OpenTelemetry variables (`OTEL_*`) of the CLI's own environment, handed to every service the
 * stack starts (they get no other variable of the caller's): e.g.
 * `OTEL_TRACES_EXPORTER=otlp OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 deploy/local/stack up`.
 * Undefined when none is set (tracing stays off, its default).
 */
export function otelServiceEnv(
  env: NodeJS.ProcessEnv = process.env,
): Partial<Record<ServiceName, Record<string, string>>> | undefined {
  const otel = Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[0].startsWith("OTEL_") && entry[1] !== undefined,
    ),
  );
  if (Object.keys(otel).length === 0) return undefined;
  return Object.fromEntries(SERVICE_ORDER.map((name) => [name, { ...otel }]));
}
