import { AppError, type AppErrorParameters } from "@platform/errors";

/**
 * An AppError raised by the gateway itself that also sets response headers (WWW-Authenticate on
 * 401, Retry-After and RateLimit on 429). Headers are an HTTP concern, so they live here and
 * not in the shared error type.
 */
export class HttpProblem extends AppError {
  readonly headers: Record<string, string>;

  constructor(parameters: AppErrorParameters & { headers: Record<string, string> }) {
    super(parameters);
    this.headers = parameters.headers;
  }
}
