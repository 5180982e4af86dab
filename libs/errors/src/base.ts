// `@platform/errors/base`: what libraries without gRPC use (the package root also loads grpc-js).
export { backoffDelay, retryDelay } from "./backoff.js";
export {
  DecodeError,
  givesUp,
  isRetryable,
  PlatformError,
  type PlatformErrorOptions,
  TransientError,
} from "./PlatformError.js";
