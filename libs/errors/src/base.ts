// `@platform/errors/base`: what libraries without gRPC use (the package root also loads grpc-js).
export { backoffDelay } from "./backoff.js";
export { DecodeError, isRetryable, PlatformError, type PlatformErrorOptions } from "./PlatformError.js";
