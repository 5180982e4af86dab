export {
  AppError,
  alreadyExists,
  failedPrecondition,
  internal,
  invalidArgument,
  notFound,
  permissionDenied,
  rebuilding,
  REBUILDING_RETRY_AFTER_SECONDS,
  resourceExhausted,
  unauthenticated,
  unavailable,
  type AppErrorParameters,
  type ProblemExtras,
} from "./AppError.js";
export { ERROR_CODE_KEY, ERROR_EXTRAS_KEY, fromGrpcError, toGrpcError } from "./grpcTransport.js";
export { defaultCodeOf, httpStatusOf } from "./statusMap.js";
export { isDependencyUnavailable } from "./dependencyUnavailable.js";
export { backoffDelay, retryDelay } from "./backoff.js";
export {
  DecodeError,
  givesUp,
  isRetryable,
  PlatformError,
  TransientError,
  type PlatformErrorOptions,
} from "./PlatformError.js";
