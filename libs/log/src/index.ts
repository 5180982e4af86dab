export { createLogger, type CreateLoggerOptions, type Logger } from "./createLogger.js";
export { CENSOR, exactRedactPaths, redactLine, scrubText, SENSITIVE_KEYS } from "./redact.js";
