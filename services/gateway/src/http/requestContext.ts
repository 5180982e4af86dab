import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Every request gets an id: the caller's `X-Request-Id` when it is well formed, else a new one.
 * It is echoed in the response and carried to the services in gRPC metadata and logs.
 */
export function requestContext(request: Request, response: Response, next: NextFunction): void {
  const incoming = request.get("x-request-id");
  const id = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  response.locals.requestId = id;
  response.locals.startedAt = process.hrtime.bigint();
  response.setHeader("x-request-id", id);
  next();
}

export function requestIdOf(response: Response): string {
  return String(response.locals.requestId ?? "");
}
