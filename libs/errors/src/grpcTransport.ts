import { Metadata, type ServiceError, type StatusObject, status } from "@grpc/grpc-js";
import { AppError, type ProblemExtras } from "./AppError.js";
import { isDependencyUnavailable } from "./dependencyUnavailable.js";
import { defaultCodeOf } from "./statusMap.js";

// Trailing metadata keys that carry an AppError across gRPC. The JSON form keeps typed extension
// members (acceptedVersion: null, currentTcVersion: 3) exactly as the service produced them.
export const ERROR_CODE_KEY = "x-error-code";
export const ERROR_EXTRAS_KEY = "x-error-extras";

/**
 * The error object a grpc-js handler passes to its callback, built from anything thrown: an
 * AppError as it is, a dependency that is away (isDependencyUnavailable) as UNAVAILABLE, anything
 * else as INTERNAL.
 */
export function toGrpcError(error: unknown): Partial<StatusObject> {
  const appError =
    error instanceof AppError
      ? error
      : isDependencyUnavailable(error)
        ? new AppError({
            code: "UNAVAILABLE",
            grpcStatus: status.UNAVAILABLE,
            detail: "a dependency of the service is unavailable; retry shortly",
            cause: error,
          })
        : new AppError({ code: "INTERNAL", grpcStatus: status.INTERNAL, detail: "internal error", cause: error });
  const metadata = new Metadata();
  metadata.set(ERROR_CODE_KEY, appError.code);
  if (Object.keys(appError.extras).length > 0) metadata.set(ERROR_EXTRAS_KEY, asciiJson(appError.extras));
  return { code: appError.grpcStatus, details: appError.message, metadata };
}

/**
 * JSON in printable ASCII, as a metadata text value must be (grpc-js throws on anything else, and
 * the throw would escape the handler): extras echo request values (a quoteId in any script), so
 * every character past '~' is written as its \u escape, which JSON.parse reads back unchanged.
 */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && typeof (error as Partial<ServiceError>).code === "number" && "metadata" in error;
}

/** Turns what a grpc-js client call rejected with back into the AppError the service threw. */
export function fromGrpcError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (!isServiceError(error)) {
    return new AppError({ code: "INTERNAL", grpcStatus: status.INTERNAL, detail: "internal error", cause: error });
  }
  const code = String(error.metadata?.get(ERROR_CODE_KEY)[0] ?? defaultCodeOf(error.code));
  const extrasRaw = error.metadata?.get(ERROR_EXTRAS_KEY)[0];
  let extras: ProblemExtras = {};
  if (typeof extrasRaw === "string") {
    try {
      extras = JSON.parse(extrasRaw) as ProblemExtras;
    } catch {
      extras = {};
    }
  }
  // Transport failures carry grpc-js's own text ("No connection established ..."); keep it out of the
  // public detail, keep it in the cause chain for logs.
  const fromService = error.metadata?.get(ERROR_CODE_KEY).length > 0;
  const detail = fromService ? error.details : transportDetail(error.code);
  return new AppError({ code, grpcStatus: error.code, detail, extras, cause: error });
}

function transportDetail(code: status): string {
  switch (code) {
    case status.UNAVAILABLE:
      return "a backend service is unavailable; retry shortly";
    case status.DEADLINE_EXCEEDED:
      return "a backend service did not answer in time";
    case status.CANCELLED:
      return "the request was cancelled";
    default:
      return "internal error";
  }
}
