import type { ServerResponse } from "node:http";
import type { ProblemExtras } from "@platform/errors";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export interface Problem {
  status: number;
  /** Stable SCREAMING_SNAKE identifier; also names the problem type. */
  code: string;
  /** Short summary of the problem type; does not vary per occurrence. */
  title: string;
  /** This occurrence, for a human fixing the request. */
  detail: string;
  instance?: string;
  extras?: ProblemExtras;
}

/** `TC_NOT_ACCEPTED` → `tc-not-accepted`: the path segment of the problem type URI. */
export function problemSlug(code: string): string {
  return code.toLowerCase().replaceAll("_", "-");
}

/** The RFC 9457 body. Extension members come after the standard ones and cannot override them. */
export function problemBody(problem: Problem, typeBase: string): Record<string, unknown> {
  return {
    ...problem.extras,
    type: `${typeBase}/problems/${problemSlug(problem.code)}`,
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    ...(problem.instance === undefined ? {} : { instance: problem.instance }),
    code: problem.code,
  };
}

/** Writes a problem as `application/problem+json` (on node's response: express's or a bare one). */
export function sendProblem(response: ServerResponse, problem: Problem, typeBase: string): void {
  sendJsonText(response, problem.status, PROBLEM_CONTENT_TYPE, JSON.stringify(problemBody(problem, typeBase)));
}

/**
 * Writes a JSON text with its status, `<type>; charset=utf-8` and Content-Length, and ends the
 * response (node leaves the body out of an answer to HEAD).
 */
export function sendJsonText(response: ServerResponse, status: number, contentType: string, text: string): void {
  response.statusCode = status;
  response.setHeader("content-type", `${contentType}; charset=utf-8`);
  response.setHeader("content-length", Buffer.byteLength(text));
  response.end(text);
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  499: "Client Closed Request",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** The title for a code, from the catalog when it names one, else the HTTP reason phrase. */
export function titleFor(code: string, status: number, catalog: Readonly<Record<string, string>> = {}): string {
  return catalog[code] ?? TITLES[status] ?? "Error";
}
