export { createLogger, type CreateLoggerOptions, type Logger } from "./createLogger.js";
export { redactPaths, scrubText } from "./redact.js";
