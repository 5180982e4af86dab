import type { IncomingMessage, ServerResponse } from "node:http";
import { sendProblem } from "@platform/http";
import { PROBLEM_TITLES } from "./problemTitles.js";
import { appendVary } from "./vary.js";

/** What a page on an allowed origin may read from an answer besides the CORS-safelisted headers. */
const EXPOSED_HEADERS = ["ratelimit", "ratelimit-policy", "retry-after", "etag", "x-request-id", "location"].join(", ");
const ALLOWED_METHODS = "GET, HEAD, POST";
/**
 * The request headers the API reads, and `cache-control`, which the client library sends on event
 * streams (`no-cache`, for proxies) and without which a browser refuses the stream's preflight;
 * anything else a page asks to send is refused by its browser.
 */
const ALLOWED_HEADERS = "authorization, cache-control, content-type, if-none-match, last-event-id, x-request-id";
/** Browsers keep a preflight's answer this long (Chromium caps it at 7,200 s). */
const PREFLIGHT_MAX_AGE_SECONDS = "600";

/** `scheme://host[:port]` exactly as a browser sends it in `Origin`: no path, no trailing slash. */
export function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value;
  } catch {
    return false;
  }
}

/**
 * Cross-origin access for pages on `allowedOrigins` (CORS_ALLOWED_ORIGINS; none by default, so a
 * browser reads no answer from another origin). An allowed origin gets its own name back in
 * `Access-Control-Allow-Origin` (never `*`: the API is read with bearer tokens a page holds) and the
 * rate-limit, ETag and request-id headers exposed; its preflight is answered here, 204. A preflight
 * from any other origin is refused with 403 ORIGIN_NOT_ALLOWED (not FORBIDDEN, which is a key's
 * missing scope), so a developer sees why instead of a 405. Answers
 * carry `Vary: Origin` whenever a request names an origin, so no shared cache hands one origin's
 * answer to another. Returns true when it answered the request (a preflight).
 */
export function createCors(
  allowedOrigins: readonly string[],
  publicBaseUrl: string,
): (request: IncomingMessage, response: ServerResponse) => boolean {
  const allowed = new Set(allowedOrigins);
  return (request, response) => {
    const origin = request.headers.origin;
    if (origin === undefined) return false;
    appendVary(response, "Origin");
    const preflight = request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined;
    if (!allowed.has(origin)) {
      if (!preflight) return false;
      response.setHeader("x-content-type-options", "nosniff");
      sendProblem(
        response,
        {
          status: 403,
          code: "ORIGIN_NOT_ALLOWED",
          title: PROBLEM_TITLES.ORIGIN_NOT_ALLOWED!,
          detail: "pages on this origin may not call the API from a browser (the gateway's CORS_ALLOWED_ORIGINS)",
        },
        publicBaseUrl,
      );
      return true;
    }
    response.setHeader("access-control-allow-origin", origin);
    if (!preflight) {
      response.setHeader("access-control-expose-headers", EXPOSED_HEADERS);
      return false;
    }
    response.writeHead(204, {
      "access-control-allow-methods": ALLOWED_METHODS,
      "access-control-allow-headers": ALLOWED_HEADERS,
      "access-control-max-age": PREFLIGHT_MAX_AGE_SECONDS,
    });
    response.end();
    return true;
  };
}
