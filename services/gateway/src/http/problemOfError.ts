import { AppError, isDependencyUnavailable } from "@platform/errors";
import { type Problem, titleFor } from "@platform/http";
import type { Logger } from "@platform/log";
import { HttpProblem } from "../HttpProblem.js";
import { PROBLEM_TITLES } from "./problemTitles.js";

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/**
 * What a failure answers, as application/problem+json: AppErrors (from validation or from a
 * service over gRPC) keep their code and extension members, and an HttpProblem its headers;
 * body-parser failures become 400/413; a dependency that is away (the gateway's Redis) 503; anything
 * else is a logged 500 with nothing internal in it. Every 503 says when to come back (Retry-After).
 */
export function problemOfError(
  error: unknown,
  log: Logger,
  requestId: string,
  instance: string,
): { problem: Problem; headers: Record<string, string> } {
  const answer = problemAndHeaders(error, log, requestId, instance);
  if (answer.problem.status === 503 && answer.headers["retry-after"] === undefined) {
    // A service that knows when to come back says so (`retryAfterSeconds`); otherwise a short wait.
    const told = answer.problem.extras?.["retryAfterSeconds"];
    const seconds =
      typeof told === "number" && Number.isInteger(told) && told > 0 ? told : UNAVAILABLE_RETRY_AFTER_SECONDS;
    return { problem: answer.problem, headers: { ...answer.headers, "retry-after": String(seconds) } };
  }
  return answer;
}

/** A dependency that is away is back within seconds (the Redis client reconnects every 100–1,000 ms) or needs an operator; a client retrying sooner only adds load. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

function problemAndHeaders(
  error: unknown,
  log: Logger,
  requestId: string,
  instance: string,
): { problem: Problem; headers: Record<string, string> } {
  const headers = error instanceof HttpProblem ? error.headers : {};
  const problem = (status: number, code: string, detail: string): Problem => ({
    status,
    code,
    title: titleFor(code, status, PROBLEM_TITLES),
    detail,
    instance,
  });
  if (error instanceof AppError) {
    if (error.httpStatus >= 500)
      log.warn({ err: error.cause ?? error, code: error.code, requestId }, "backend failure");
    return { problem: { ...problem(error.httpStatus, error.code, error.detail), extras: error.extras }, headers };
  }
  const parserError = error as BodyParserError;
  if (parserError?.type === "entity.parse.failed")
    return { problem: problem(400, "INVALID_REQUEST", "the request body is not valid JSON"), headers };
  if (parserError?.type === "entity.too.large")
    return { problem: problem(413, "PAYLOAD_TOO_LARGE", "the request body is too large"), headers };
  if (typeof parserError?.status === "number" && parserError.status >= 400 && parserError.status < 500) {
    return { problem: problem(400, "INVALID_REQUEST", "the request could not be read"), headers };
  }
  if (isDependencyUnavailable(error)) {
    log.warn({ err: error, requestId }, "a dependency is unavailable");
    return {
      problem: problem(
        503,
        "UNAVAILABLE",
        "the service is unavailable for a moment; retry after the Retry-After delay",
      ),
      headers,
    };
  }
  log.error({ err: error, requestId }, "unhandled error");
  return { problem: problem(500, "INTERNAL", "internal error; the request id identifies it in the logs"), headers };
}
