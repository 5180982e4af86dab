// `@platform/errors/base`: what libraries without gRPC use (the package root also loads grpc-js).
export { backoffDelay, retryDelay } from "./backoff.js";
export {
  DecodeError,
  givesUp,
  isRetryable,
  PlatformError,
  TransientError,
  type PlatformErrorOptions,
} from "./PlatformError.js";
