import { createConformance } from "@platform/http/conformance";
import { afterAll, expect } from "vitest";

/*
 * Every answer the end-to-end suite receives from a gateway, held against that gateway's own
 * `/openapi.json` (issue 31: "a test holds every answer of the e2e suite against the document"):
 * a setup file of the e2e project (vitest.config.ts), so each test file's global `fetch`, and the
 * client built on it, records and checks every API answer it gets, and the file fails at its end
 * on any status, content type, body member or header the document does not describe. Event
 * streams are checked by their headers; their events by the stream tests.
 */

/** The parts of the API the document describes; ops, docs and problem pages are not operations. */
const API_PATH = /^\/(auth$|data\/v1\/|intents\/v1\/)/;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

type Check = ReturnType<typeof createConformance>;

const passThrough = globalThis.fetch;
const checks = new Map<string, Promise<Check | undefined>>();
const violations: string[] = [];

/** The gateway's document at `origin`, once it answers (a stack being stopped may not). */
function checkOf(origin: string): Promise<Check | undefined> {
  let check = checks.get(origin);
  if (check === undefined) {
    check = passThrough(`${origin}/openapi.json`)
      .then(async (response) =>
        response.ok ? createConformance((await response.json()) as Record<string, unknown>) : undefined,
      )
      .catch(() => undefined);
    checks.set(origin, check);
    // Not kept when it failed: the next answer of that origin asks again.
    void check.then((found) => found === undefined && checks.delete(origin));
  }
  return check;
}

globalThis.fetch = async (input, init) => {
  const request = new Request(input, init);
  const response = await passThrough(request);
  const url = new URL(request.url);
  if (!LOOPBACK.has(url.hostname) || !API_PATH.test(url.pathname)) return response;
  const check = await checkOf(url.origin);
  if (check === undefined) return response;
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  let body: unknown;
  if (request.method !== "HEAD" && /json/.test(headers["content-type"] ?? "")) {
    const text = await response.clone().text();
    body = text === "" ? undefined : JSON.parse(text);
  }
  const result = check({ method: request.method, path: url.pathname, status: response.status, headers, body });
  for (const violation of result.violations)
    violations.push(`${request.method} ${url.pathname}${url.search} → ${response.status}: ${violation}`);
  return response;
};

afterAll(() => {
  expect(violations, "answers the gateway's /openapi.json does not describe").toEqual([]);
});
