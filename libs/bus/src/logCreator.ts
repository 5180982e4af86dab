import type { Logger } from "@platform/log";
import kafkajs, { type logLevel as KafkaLogLevel, type LogEntry, type logCreator } from "kafkajs";

const { logLevel } = kafkajs;

type PinoLevel = "error" | "warn" | "info" | "debug" | "trace";

/**
 * The pino level for a kafkajs log entry. kafkajs is loud: it logs every error response of
 * the broker at ERROR even when it retries it, and repeats at ERROR what it then throws to
 * the caller, who logs it with context. So:
 * - ERROR becomes warn; error responses of a single request (namespace `Connection`) become
 *   debug, as the request is retried or its error thrown. A consumer crash is warn too: kafkajs
 *   restarts the consumer after retriable errors, and `runProjectionConsumer` reports the
 *   crashes it does not restart from at error.
 * - WARN stays warn, except the warning about bounded retries of the idempotent producer,
 *   a deliberate choice of `createPublisher` (debug), and rebalances, which are routine (info).
 * - INFO (starting, joining groups, stopping) becomes debug; DEBUG becomes trace.
 */
export function kafkaLevelToPino(entry: Pick<LogEntry, "namespace" | "level" | "log">): PinoLevel | undefined {
  const message = messageOf(entry.log.message);
  switch (entry.level) {
    case logLevel.ERROR:
      if (entry.namespace === "Connection") return "debug";
      return "warn";
    case logLevel.WARN:
      if (message.startsWith("Limiting retries for the idempotent producer")) return "debug";
      if (message.startsWith("The group is rebalancing")) return "info";
      return "warn";
    case logLevel.INFO:
      return "debug";
    case logLevel.DEBUG:
      return "trace";
    default:
      return undefined;
  }
}

/** The kafkajs level worth producing for a pino logger: no DEBUG work when pino drops it anyway. */
export function kafkaLogLevelFor(logger: Logger): KafkaLogLevel {
  if (logger.isLevelEnabled("trace")) return logLevel.DEBUG;
  if (logger.isLevelEnabled("debug")) return logLevel.INFO;
  return logLevel.WARN;
}

/** A kafkajs `logCreator` writing to pino under `component: "kafkajs"`. Never throws into kafkajs. */
export function kafkaLogCreator(logger: Logger): logCreator {
  const log = logger.child({ component: "kafkajs" });
  return () => (entry) => {
    try {
      const level = kafkaLevelToPino(entry);
      if (level === undefined || !log.isLevelEnabled(level)) return;
      // pino stamps its own time and `component` replaces kafkajs' `logger`; kafkajs' `error`
      // is a message string or an Error, `stack` a string.
      const { message, timestamp: _timestamp, logger: _logger, error, stack, ...fields } = entry.log;
      const details: Record<string, unknown> = { namespace: entry.namespace, ...fields };
      if (error !== undefined) details.kafkaError = messageOf(error);
      if (stack !== undefined && (level === "error" || log.isLevelEnabled("debug"))) details.stack = stack;
      log[level](details, messageOf(message));
    } catch {
      // A log line is never worth breaking the client for.
    }
  };
}

/** kafkajs passes an Error as the message in places. */
function messageOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  return String(value);
}
