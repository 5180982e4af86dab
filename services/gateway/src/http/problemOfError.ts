import { AppError } from "@platform/errors";
import type { Logger } from "@platform/log";
import { titleFor, type Problem } from "@platform/http";
import { HttpProblem } from "./HttpProblem.js";
import { PROBLEM_TITLES } from "./problemTitles.js";

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/**
 * What a failure answers, as application/problem+json: AppErrors (from validation or from a
 * service over gRPC) keep their code and extension members, and an HttpProblem its headers;
 * body-parser failures become 400/413; anything else is a logged 500 with nothing internal in it.
 */
export function problemOfError(error: unknown, log: Logger, requestId: string, instance: string): { problem: Problem; headers: Record<string, string> } {
  const headers = error instanceof HttpProblem ? error.headers : {};
  const problem = (status: number, code: string, detail: string): Problem => ({ status, code, title: titleFor(code, status, PROBLEM_TITLES), detail, instance });
  if (error instanceof AppError) {
    if (error.httpStatus >= 500) log.warn({ err: error.cause ?? error, code: error.code, requestId }, "backend failure");
    return { problem: { ...problem(error.httpStatus, error.code, error.detail), extras: error.extras }, headers };
  }
  const parserError = error as BodyParserError;
  if (parserError?.type === "entity.parse.failed") return { problem: problem(400, "INVALID_REQUEST", "the request body is not valid JSON"), headers };
  if (parserError?.type === "entity.too.large") return { problem: problem(413, "PAYLOAD_TOO_LARGE", "the request body is too large"), headers };
  if (typeof parserError?.status === "number" && parserError.status >= 400 && parserError.status < 500) {
    return { problem: problem(400, "INVALID_REQUEST", "the request could not be read"), headers };
  }
  log.error({ err: error, requestId }, "unhandled error");
  return { problem: problem(500, "INTERNAL", "internal error; the request id identifies it in the logs"), headers };
}
