import { type ServerUnaryCall, type StatusObject, type sendUnaryData, status } from "@grpc/grpc-js";
import { AppError, isDependencyUnavailable, toGrpcError } from "@platform/errors";
import type { Logger } from "@platform/log";

/**
 * Adapts an async function to grpc-js's callback style. Thrown AppErrors travel to the caller with
 * their code and extension members; a dependency that is away (Redis down) becomes UNAVAILABLE
 * (the caller answers 503 and may retry); anything else is logged here and becomes INTERNAL.
 */
export function unaryHandler<Request, Response>(
  log: Logger,
  method: string,
  handler: (request: Request, call: ServerUnaryCall<Request, Response>) => Promise<Response>,
): (call: ServerUnaryCall<Request, Response>, callback: sendUnaryData<Response>) => void {
  return (call, callback) => {
    handler(call.request, call).then(
      (response) => callback(null, response),
      (error: unknown) => {
        if (!(error instanceof AppError)) {
          if (isDependencyUnavailable(error))
            log.warn({ err: error, method }, "a dependency is unavailable; answered UNAVAILABLE");
          else log.error({ err: error, method }, "unexpected error in gRPC handler");
        }
        callback(safeGrpcError(log, method, error));
      },
    );
  };
}

/** toGrpcError, and should building the answer itself fail, a bare INTERNAL: a throw here would end the process. */
export function safeGrpcError(log: Logger, method: string, error: unknown): Partial<StatusObject> {
  try {
    return toGrpcError(error);
  } catch (failure) {
    log.error({ err: failure, method }, "could not encode a gRPC error; answered INTERNAL");
    return { code: status.INTERNAL, details: "internal error" };
  }
}
