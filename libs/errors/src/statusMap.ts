import { status } from "@grpc/grpc-js";

/** google.rpc.Code → HTTP, as in googleapis' code.proto; the gateway answers with these. */
const GRPC_TO_HTTP: Record<number, number> = {
  [status.OK]: 200,
  [status.CANCELLED]: 499,
  [status.UNKNOWN]: 500,
  [status.INVALID_ARGUMENT]: 400,
  [status.DEADLINE_EXCEEDED]: 504,
  [status.NOT_FOUND]: 404,
  [status.ALREADY_EXISTS]: 409,
  [status.PERMISSION_DENIED]: 403,
  [status.UNAUTHENTICATED]: 401,
  [status.RESOURCE_EXHAUSTED]: 429,
  [status.FAILED_PRECONDITION]: 400,
  [status.ABORTED]: 409,
  [status.OUT_OF_RANGE]: 400,
  [status.UNIMPLEMENTED]: 501,
  [status.INTERNAL]: 500,
  [status.UNAVAILABLE]: 503,
  [status.DATA_LOSS]: 500,
};

export function httpStatusOf(grpcCode: status): number {
  return GRPC_TO_HTTP[grpcCode] ?? 500;
}

/** The default stable code for a gRPC status, used when a service gave none of its own. */
export function defaultCodeOf(grpcCode: status): string {
  switch (grpcCode) {
    case status.INVALID_ARGUMENT:
    case status.FAILED_PRECONDITION:
    case status.OUT_OF_RANGE:
      return "INVALID_REQUEST";
    case status.NOT_FOUND:
      return "NOT_FOUND";
    case status.ALREADY_EXISTS:
    case status.ABORTED:
      return "CONFLICT";
    case status.PERMISSION_DENIED:
      return "FORBIDDEN";
    case status.UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    case status.RESOURCE_EXHAUSTED:
      return "RATE_LIMITED";
    case status.DEADLINE_EXCEEDED:
      return "UPSTREAM_TIMEOUT";
    case status.UNAVAILABLE:
      return "UNAVAILABLE";
    case status.UNIMPLEMENTED:
      return "NOT_IMPLEMENTED";
    case status.CANCELLED:
      return "CANCELLED";
    default:
      return "INTERNAL";
  }
}
