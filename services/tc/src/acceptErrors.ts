import { status } from "@grpc/grpc-js";
import { AppError, invalidArgument, type ProblemExtras, unavailable } from "@platform/errors";

/*
 * Accept's refusals, one code each (API.md, "T&C acceptance rules"), and their gRPC status (the
 * gateway answers with the HTTP status of libs/errors statusMap):
 *
 * - INVALID_ARGUMENT (400) for everything wrong with the message or signature itself. The
 *   signature failure is deliberately not UNAUTHENTICATED: a 401 on a bearer-protected route
 *   would read as "your access token is bad".
 * - TC_VERSION_MISMATCH is ABORTED (409): the message was built for another T&C version (or lists
 *   other resources than the one the server offered); the client must start over with a fresh
 *   nonce and the current version, which is what ABORTED asks for ("retry at a higher level").
 * - A dependency that is away (Redis, Kafka, the RPC a contract wallet is checked on) is
 *   UNAVAILABLE (503), never a refusal of the signature.
 */

export type AcceptRefusalCode =
  | "SIWE_MALFORMED"
  | "SIWE_SIGNATURE_INVALID"
  | "SIWE_DOMAIN_MISMATCH"
  | "SIWE_URI_MISMATCH"
  | "SIWE_CHAIN_UNSUPPORTED"
  | "SIWE_EXPIRED"
  | "SIWE_NOT_YET_VALID"
  | "NONCE_INVALID_OR_USED"
  | "TC_VERSION_MISMATCH";

export function refusal(code: AcceptRefusalCode, detail: string, extras?: ProblemExtras): AppError {
  if (code === "TC_VERSION_MISMATCH") return new AppError({ code, grpcStatus: status.ABORTED, detail, extras });
  return invalidArgument(code, detail, extras);
}

/** A dependency failed while deciding; the caller may try again (with a new nonce if one was consumed). */
export function dependencyUnavailable(detail: string, cause?: unknown): AppError {
  return unavailable("UNAVAILABLE", detail, undefined, cause);
}
