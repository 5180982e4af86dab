import type { NextFunction, Request, Response } from "express";
import { AppError } from "@platform/errors";
import type { Logger } from "@platform/log";
import { sendProblem, titleFor } from "@platform/http";
import { HttpProblem } from "./HttpProblem.js";
import { PROBLEM_TITLES } from "./problemTitles.js";

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/**
 * The last middleware: every failure leaves as application/problem+json. AppErrors (from
 * validation or from a service over gRPC) keep their code and extension members; body-parser
 * failures become 400/413; anything else is a logged 500 with nothing internal in the body.
 */
export function errorHandler(log: Logger, problemTypeBase: string) {
  // express recognises an error handler by its four parameters
  return (error: unknown, request: Request, response: Response, _next: NextFunction): void => {
    const instance = request.originalUrl.split("?")[0];
    if (error instanceof HttpProblem) for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
    if (error instanceof AppError) {
      if (error.httpStatus >= 500) log.warn({ err: error.cause ?? error, code: error.code, requestId: response.locals.requestId }, "backend failure");
      sendProblem(
        response,
        { status: error.httpStatus, code: error.code, title: titleFor(error.code, error.httpStatus, PROBLEM_TITLES), detail: error.detail, instance, extras: error.extras },
        problemTypeBase,
      );
      return;
    }
    const parserError = error as BodyParserError;
    if (parserError?.type === "entity.parse.failed") {
      sendProblem(response, { status: 400, code: "INVALID_REQUEST", title: titleFor("INVALID_REQUEST", 400, PROBLEM_TITLES), detail: "the request body is not valid JSON", instance }, problemTypeBase);
      return;
    }
    if (parserError?.type === "entity.too.large") {
      sendProblem(response, { status: 413, code: "PAYLOAD_TOO_LARGE", title: titleFor("PAYLOAD_TOO_LARGE", 413, PROBLEM_TITLES), detail: "the request body is too large", instance }, problemTypeBase);
      return;
    }
    if (typeof parserError?.status === "number" && parserError.status >= 400 && parserError.status < 500) {
      sendProblem(response, { status: 400, code: "INVALID_REQUEST", title: titleFor("INVALID_REQUEST", 400, PROBLEM_TITLES), detail: "the request could not be read", instance }, problemTypeBase);
      return;
    }
    log.error({ err: error, requestId: response.locals.requestId }, "unhandled error");
    sendProblem(response, { status: 500, code: "INTERNAL", title: titleFor("INTERNAL", 500, PROBLEM_TITLES), detail: "internal error; the request id identifies it in the logs", instance }, problemTypeBase);
  };
}
