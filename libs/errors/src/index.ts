export {
  AppError,
  type AppErrorParameters,
  alreadyExists,
  failedPrecondition,
  internal,
  invalidArgument,
  notFound,
  type ProblemExtras,
  permissionDenied,
  REBUILDING_RETRY_AFTER_SECONDS,
  rebuilding,
  resourceExhausted,
  unauthenticated,
  unavailable,
} from "./AppError.js";
export { backoffDelay, retryDelay } from "./backoff.js";
export { isDependencyUnavailable } from "./dependencyUnavailable.js";
export { ERROR_CODE_KEY, ERROR_EXTRAS_KEY, fromGrpcError, toGrpcError } from "./grpcTransport.js";
export {
  DecodeError,
  givesUp,
  isRetryable,
  PlatformError,
  type PlatformErrorOptions,
  TransientError,
} from "./PlatformError.js";
export { defaultCodeOf, httpStatusOf } from "./statusMap.js";
