import { ClientError } from "./clientError.js";
import type { components } from "./generated/schema.js";

/** Every problem `code` the OpenAPI document lists. */
export type DocumentedProblemCode = components["schemas"]["Problem"]["code"];

/**
 * A documented code, or `UNEXPECTED_RESPONSE` for an error answer that is not a problem (a proxy's
 * HTML page, an empty body). A code added by a newer server than this client arrives as sent.
 */
export type ProblemCode = DocumentedProblemCode | "UNEXPECTED_RESPONSE";

/**
 * One mistake of a refused request, as a 400's `errors` lists it: `pointer` is a JSON Pointer
 * (RFC 6901) into the JSON body for a body member (`/order/fillDeadline`), or `/query/<name>` and
 * `/path/<name>` for a parameter; `detail` says what is wrong with it.
 */
export type ProblemFieldError = NonNullable<components["schemas"]["Problem"]["errors"]>[number];

/** An RFC 9457 problem as the API sends it (`application/problem+json`), with its extension members. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string | undefined;
  instance?: string | undefined;
  code: ProblemCode;
  /** Every mistake of a refused request (a 400 of its path, query or body). */
  errors?: ProblemFieldError[] | undefined;
  [member: string]: unknown;
}

/** An error answer of the API, thrown by the client's helpers. */
export class ProblemError extends ClientError {
  override readonly name = "ProblemError";
  readonly status: number;
  readonly code: ProblemCode;
  readonly title: string;
  readonly detail: string | undefined;
  /** The request's `X-Request-Id`, to quote when asking about it. */
  readonly requestId: string | undefined;
  /** `Retry-After` in seconds, when the answer carried one (429, 503). */
  readonly retryAfterSeconds: number | undefined;
  /**
   * Every mistake of a refused request at once (the problem's `errors`: unknown query parameters,
   * bad values, missing body fields), each with its JSON Pointer; empty when the problem has none.
   */
  readonly errors: readonly ProblemFieldError[];
  /** The problem as received, extension members included (e.g. `acceptedVersion` of TC_NOT_ACCEPTED). */
  readonly problem: Problem;

  constructor(problem: Problem, init: { requestId?: string | undefined; retryAfterSeconds?: number | undefined } = {}) {
    super(`${problem.status} ${problem.code}${problem.detail ? `: ${problem.detail}` : ""}`);
    this.status = problem.status;
    this.code = problem.code;
    this.title = problem.title;
    this.detail = problem.detail;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.errors = fieldErrorsOf(problem.errors);
    this.problem = problem;
  }
}

/** Whether `error` is a ProblemError, optionally with one of `codes`. */
export function isProblem(error: unknown, ...codes: ProblemCode[]): error is ProblemError {
  return error instanceof ProblemError && (codes.length === 0 || codes.includes(error.code));
}

/** The ProblemError of an error answer whose body was already read (as JSON when it parsed, else text). */
export function problemErrorOf(response: Response, body: unknown): ProblemError {
  const init = {
    requestId: response.headers.get("x-request-id") ?? undefined,
    retryAfterSeconds: retryAfterSeconds(response.headers.get("retry-after")),
  };
  if (isProblemBody(body)) {
    return new ProblemError(
      {
        ...body,
        type: typeof body.type === "string" ? body.type : "about:blank",
        status: typeof body.status === "number" ? body.status : response.status,
        detail: typeof body.detail === "string" ? body.detail : undefined,
        code: body.code as ProblemCode,
      },
      init,
    );
  }
  const text = typeof body === "string" ? body : body === undefined ? "" : JSON.stringify(body);
  return new ProblemError(
    {
      type: "about:blank",
      title: response.statusText || `HTTP ${response.status}`,
      status: response.status,
      detail: text.length > 300 ? `${text.slice(0, 300)}…` : text || undefined,
      code: "UNEXPECTED_RESPONSE",
    },
    init,
  );
}

/** Reads an error answer's body and makes its ProblemError. */
export async function readProblem(response: Response): Promise<ProblemError> {
  const text = await response.text().catch(() => "");
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text for the detail.
  }
  return problemErrorOf(response, body);
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The well-formed items of a problem's `errors` (a newer or odd server's others are left out). */
function fieldErrorsOf(errors: unknown): ProblemFieldError[] {
  if (!Array.isArray(errors)) return [];
  return errors.filter(
    (item): item is ProblemFieldError =>
      typeof item === "object" &&
      item !== null &&
      typeof (item as { pointer?: unknown }).pointer === "string" &&
      typeof (item as { detail?: unknown }).detail === "string",
  );
}

function isProblemBody(body: unknown): body is Record<string, unknown> & { code: string; title: string } {
  return (
    typeof body === "object" &&
    body !== null &&
    typeof (body as { code?: unknown }).code === "string" &&
    typeof (body as { title?: unknown }).title === "string"
  );
}
