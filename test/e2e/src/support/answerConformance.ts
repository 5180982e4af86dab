import { createConformance, type RecordedAnswer } from "@platform/http/conformance";

/*
 * Every answer an end-to-end test receives from the gateway, held against the gateway's own
 * `/openapi.json` (libs/http conformance.ts): a status, content type, body member or header the
 * document does not describe is a violation. Tests send their requests through `fetch` below (the
 * same as the global one) and assert `violations()` is empty at the end.
 */

/** The parts of the API the document describes; ops and docs routes are not operations. */
const API_PATH = /^\/(auth$|data\/v1\/|intents\/v1\/)/;

export interface CheckedAnswer {
  operation: string;
  status: number;
}

export interface AnswerRecorder {
  /** `fetch`, recording and checking each answer of the gateway's API. */
  fetch: typeof fetch;
  /** Each answer checked so far: its operation and status. */
  checked(): CheckedAnswer[];
  /** What the document did not describe, one line per violation, naming the request. */
  violations(): string[];
}

export async function answerRecorder(gatewayUrl: string): Promise<AnswerRecorder> {
  const document = (await (await fetch(`${gatewayUrl}/openapi.json`)).json()) as Record<string, unknown>;
  const check = createConformance(document);
  const origin = new URL(gatewayUrl).origin;
  const checked: CheckedAnswer[] = [];
  const violations: string[] = [];

  const recordingFetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    const url = new URL(request.url);
    if (url.origin !== origin || !API_PATH.test(url.pathname)) return response;
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const contentType = headers["content-type"] ?? "";
    const answer: RecordedAnswer = { method: request.method, path: url.pathname, status: response.status, headers };
    // An event stream never ends: its headers are checked, its events by the stream tests.
    if (request.method !== "HEAD" && /json/.test(contentType)) {
      const text = await response.clone().text();
      answer.body = text === "" ? undefined : JSON.parse(text);
    }
    const result = check(answer);
    checked.push({ operation: result.operation ?? `${request.method} ${url.pathname}`, status: response.status });
    for (const violation of result.violations)
      violations.push(`${request.method} ${url.pathname}${url.search} → ${response.status}: ${violation}`);
    return response;
  };

  return { fetch: recordingFetch, checked: () => [...checked], violations: () => [...violations] };
}
