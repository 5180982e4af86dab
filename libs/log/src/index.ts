export { type CreateLoggerOptions, createLogger, type Logger } from "./createLogger.js";
export { CENSOR, exactRedactPaths, redactLine, SENSITIVE_KEYS, scrubText } from "./redact.js";
