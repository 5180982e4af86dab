/** Titles of the problem types the gateway answers with; `detail` varies, these do not. */
export const PROBLEM_TITLES: Readonly<Record<string, string>> = {
  INVALID_REQUEST: "Invalid request",
  INVALID_PARAMETER: "Invalid parameter",
  INVALID_ADDRESS: "Invalid address",
  INVALID_CURSOR: "Invalid cursor",
  WINDOW_TOO_LARGE: "Time window too large",
  NOT_FOUND: "Not found",
  METHOD_NOT_ALLOWED: "Method not allowed",
  PAYLOAD_TOO_LARGE: "Payload too large",
  UNAUTHENTICATED: "Authentication required",
  INVALID_TOKEN: "Invalid token",
  FORBIDDEN: "Forbidden",
  RATE_LIMITED: "Rate limit exceeded",
  TC_NOT_ACCEPTED: "Terms and Conditions not accepted",
  UNAVAILABLE: "Service unavailable",
  UPSTREAM_TIMEOUT: "Upstream timeout",
  INTERNAL: "Internal error",
};
