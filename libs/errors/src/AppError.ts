import { status } from "@grpc/grpc-js";
import { PlatformError } from "./PlatformError.js";
import { httpStatusOf } from "./statusMap.js";

/** Extension members of a problem (RFC 9457 §3.2): plain JSON values only, they cross gRPC as JSON. */
export type ProblemExtras = Record<
  string,
  string | number | boolean | null | readonly unknown[] | Record<string, unknown>
>;

export interface AppErrorParameters {
  /** Stable SCREAMING_SNAKE identifier clients may branch on. */
  code: string;
  grpcStatus: status;
  /** This occurrence, for a human fixing the request. Never carries secrets. */
  detail: string;
  extras?: ProblemExtras;
  cause?: unknown;
}

/** gRPC's own advice: these may succeed when tried again (after Retry-After, for the HTTP ones). */
const RETRYABLE_STATUSES: ReadonlySet<status> = new Set([
  status.UNAVAILABLE,
  status.DEADLINE_EXCEEDED,
  status.RESOURCE_EXHAUSTED,
  status.ABORTED,
]);

/**
 * The one error type services throw on purpose. It carries what the gateway needs to render a
 * problem+json (code, status, extension members) through gRPC unchanged.
 */
export class AppError extends PlatformError {
  readonly grpcStatus: status;
  readonly extras: ProblemExtras;

  constructor(parameters: AppErrorParameters) {
    super(parameters.detail, {
      code: parameters.code,
      retryable: RETRYABLE_STATUSES.has(parameters.grpcStatus),
      cause: parameters.cause,
    });
    this.grpcStatus = parameters.grpcStatus;
    this.extras = parameters.extras ?? {};
  }

  get httpStatus(): number {
    return httpStatusOf(this.grpcStatus);
  }

  get detail(): string {
    return this.message;
  }
}

type Shortcut = (code: string, detail: string, extras?: ProblemExtras, cause?: unknown) => AppError;

function shortcut(grpcStatus: status): Shortcut {
  return (code, detail, extras, cause) => new AppError({ code, grpcStatus, detail, extras, cause });
}

export const invalidArgument = shortcut(status.INVALID_ARGUMENT);
export const notFound = shortcut(status.NOT_FOUND);
export const permissionDenied = shortcut(status.PERMISSION_DENIED);
export const unauthenticated = shortcut(status.UNAUTHENTICATED);
export const failedPrecondition = shortcut(status.FAILED_PRECONDITION);
export const alreadyExists = shortcut(status.ALREADY_EXISTS);
export const resourceExhausted = shortcut(status.RESOURCE_EXHAUSTED);
export const unavailable = shortcut(status.UNAVAILABLE);
export const internal = shortcut(status.INTERNAL);

/** How long a client waits before asking again while a read model is rebuilt. */
export const REBUILDING_RETRY_AFTER_SECONDS = 2;

/** 503 REBUILDING: a read model lost with its store is being replayed, and answers wait until it has caught up. */
export const rebuilding = (what = "the read model"): AppError =>
  unavailable("REBUILDING", `${what} is being rebuilt after its store was lost; answers resume once it has caught up`, {
    retryAfterSeconds: REBUILDING_RETRY_AFTER_SECONDS,
  });
