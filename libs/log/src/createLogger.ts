import { pino, stdSerializers, type DestinationStream, type Logger } from "pino";
import { redactPaths, scrubText } from "./redact.js";

export type { Logger } from "pino";

export interface CreateLoggerOptions {
  /** The service name, carried on every line. */
  service: string;
  level?: string;
  /** Where lines go; stdout when omitted. Tests pass a stream to capture lines. */
  destination?: DestinationStream;
}

/** JSON lines on stdout with secrets redacted, the shape every service logs in. */
export function createLogger(options: CreateLoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? "info",
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: redactPaths, censor: "[redacted]" },
      serializers: { err: serializeError, error: serializeError },
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination,
  );
}

function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const serialized = stdSerializers.err(error);
  serialized.message = scrubText(serialized.message);
  if (serialized.stack) serialized.stack = scrubText(serialized.stack);
  return serialized;
}
