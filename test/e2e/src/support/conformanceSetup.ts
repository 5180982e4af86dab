import { createConformance } from "@platform/http/conformance";
import { createEventConformance } from "@platform/http/eventConformance";
import { afterAll, expect } from "vitest";
import { observedBody, sseParser } from "./sseEvents.js";

/*
 * Every answer the end-to-end suite receives from a gateway, held against that gateway's own
 * `/openapi.json` (issue 31: "a test holds every answer of the e2e suite against the document"):
 * a setup file of the e2e project (vitest.config.ts), so each test file's global `fetch`, and the
 * client built on it, records and checks every API answer it gets, and the file fails at its end
 * on any status, content type, body member or header the document does not describe. Event
 * streams too: their headers, and each event they send, its name, id and data, against the
 * stream's declared event schemas (issue 43), as the stream tests read them.
 */

/** The parts of the API the document describes; ops, docs and problem pages are not operations. */
const API_PATH = /^\/(auth$|data\/v1\/|intents\/v1\/)/;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

interface Check {
  answer: ReturnType<typeof createConformance>;
  event: ReturnType<typeof createEventConformance>;
}

const passThrough = globalThis.fetch;
const checks = new Map<string, Promise<Check | undefined>>();
const violations: string[] = [];

/** The gateway's document at `origin`, once it answers (a stack being stopped may not). */
function checkOf(origin: string): Promise<Check | undefined> {
  let check = checks.get(origin);
  if (check === undefined) {
    check = passThrough(`${origin}/openapi.json`)
      .then(async (response) =>
        response.ok ? checksOf((await response.json()) as Record<string, unknown>) : undefined,
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
  const result = check.answer({ method: request.method, path: url.pathname, status: response.status, headers, body });
  for (const violation of result.violations)
    violations.push(`${request.method} ${url.pathname}${url.search} → ${response.status}: ${violation}`);
  if (request.method !== "GET" || !headers["content-type"]?.startsWith("text/event-stream") || response.body === null)
    return response;
  // Each event is held against the stream's schemas as the test reads it.
  const observed = observedBody(
    response.body,
    sseParser((event) => {
      checkedEvents += 1;
      for (const violation of check.event(url.pathname, event))
        violations.push(`${request.method} ${url.pathname}${url.search} event: ${violation}`);
    }),
  );
  return new Response(observed, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
};

const checksOf = (document: Record<string, unknown>): Check => ({
  answer: createConformance(document),
  event: createEventConformance(document),
});

/** How many events the suite's streams sent, all checked. */
let checkedEvents = 0;

afterAll(() => {
  if (checkedEvents > 0) console.log(`conformance: ${checkedEvents} stream events held against the document`);
  expect(violations, "answers the gateway's /openapi.json does not describe").toEqual([]);
});
