import { Metadata, type ServiceError, status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { AppError, permissionDenied } from "./AppError.js";
import { fromGrpcError, toGrpcError } from "./grpcTransport.js";
import { httpStatusOf } from "./statusMap.js";

function asServiceError(object: ReturnType<typeof toGrpcError>): ServiceError {
  return Object.assign(new Error(object.details), {
    code: object.code!,
    details: object.details!,
    metadata: object.metadata!,
  });
}

describe("AppError over gRPC", () => {
  it("keeps code, status, detail and typed extension members", () => {
    const thrown = permissionDenied("TC_NOT_ACCEPTED", "wallet has not accepted version 3", {
      acceptedVersion: null,
      currentTcVersion: 3,
    });
    const received = fromGrpcError(asServiceError(toGrpcError(thrown)));
    expect(received).toBeInstanceOf(AppError);
    expect(received.code).toBe("TC_NOT_ACCEPTED");
    expect(received.httpStatus).toBe(403);
    expect(received.detail).toBe("wallet has not accepted version 3");
    expect(received.extras).toEqual({ acceptedVersion: null, currentTcVersion: 3 });
  });

  it("carries extension members in any script, lone surrogates and control characters included (metadata is ASCII)", () => {
    const extras = { quoteId: "\u{87cbe}é\ud800\u0000\u007f~", parameter: "quoteId" };
    const sent = toGrpcError(permissionDenied("QUOTE_NOT_FOUND", "no such quote", extras));
    expect(String(sent.metadata!.get("x-error-extras")[0])).toMatch(/^[\x20-\x7e]+$/);
    expect(fromGrpcError(asServiceError(sent)).extras).toEqual(extras);
  });

  it("hides unexpected errors behind INTERNAL without leaking their message", () => {
    const object = toGrpcError(new Error("db password is hunter2"));
    expect(object.code).toBe(status.INTERNAL);
    expect(object.details).toBe("internal error");
  });

  it("answers a dependency that is away (Redis down) with UNAVAILABLE, its message kept out of the detail", () => {
    const sent = toGrpcError(new Error("Stream isn't writeable and enableOfflineQueue options is false"));
    expect(sent.code).toBe(status.UNAVAILABLE);
    expect(sent.details).toBe("a dependency of the service is unavailable; retry shortly");
    expect(sent.metadata?.get("x-error-code")).toEqual(["UNAVAILABLE"]);
  });

  it("maps transport failures to stable codes and generic details", () => {
    const error = Object.assign(new Error("14 UNAVAILABLE: No connection established"), {
      code: status.UNAVAILABLE,
      details: "No connection established. Last error: connect ECONNREFUSED 127.0.0.1:1",
      metadata: new Metadata(),
    });
    const received = fromGrpcError(error);
    expect(received.code).toBe("UNAVAILABLE");
    expect(received.httpStatus).toBe(503);
    expect(received.detail).not.toContain("ECONNREFUSED");
  });

  it("maps every gRPC status to the HTTP status of google.rpc.Code", () => {
    expect(httpStatusOf(status.INVALID_ARGUMENT)).toBe(400);
    expect(httpStatusOf(status.NOT_FOUND)).toBe(404);
    expect(httpStatusOf(status.UNAUTHENTICATED)).toBe(401);
    expect(httpStatusOf(status.PERMISSION_DENIED)).toBe(403);
    expect(httpStatusOf(status.RESOURCE_EXHAUSTED)).toBe(429);
    expect(httpStatusOf(status.DEADLINE_EXCEEDED)).toBe(504);
    expect(httpStatusOf(status.UNAVAILABLE)).toBe(503);
    expect(httpStatusOf(status.INTERNAL)).toBe(500);
  });
});
