import { retryAfterSeconds } from "./problem.js";
import type { TokenSource } from "./tokens.js";

/** What the client sends requests with: `fetch`, or a stand-in with the same behaviour. */
export type Send = (request: Request) => Promise<Response>;

export interface RetryOptions {
  /**
   * Retries of one request after an answer that says when to come back (`Retry-After`): every 429,
   * and a 503 of a request that is safe to repeat (GET, HEAD, and the token exchange). Default 3.
   */
  maxRetries?: number;
  /** A `Retry-After` longer than this is not waited for: the answer is returned as it is. Default 60 s. */
  maxDelayMs?: number;
}

/**
 * Sends again after 429, or 503 when repeating is safe, once the `Retry-After` of the answer has
 * passed, at most `maxRetries` times; any other answer (or one without Retry-After) is returned.
 * A 429 means the request was refused before anything ran; a 503 of a write may come after it ran.
 */
export function retrying(send: Send, options: RetryOptions = {}, isTokenExchange: (request: Request) => boolean): Send {
  const maxRetries = options.maxRetries ?? 3;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  return async (request) => {
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt >= maxRetries;
      const response = await send(last ? request : request.clone());
      const delayMs = last ? undefined : retryDelayMs(request, response, maxDelayMs, isTokenExchange);
      if (delayMs === undefined) return response;
      await response.body?.cancel().catch(() => undefined);
      await sleep(delayMs, request.signal);
      request.signal.throwIfAborted();
    }
  };
}

function retryDelayMs(
  request: Request,
  response: Response,
  maxDelayMs: number,
  isTokenExchange: (request: Request) => boolean,
): number | undefined {
  const safeToRepeat = request.method === "GET" || request.method === "HEAD" || isTokenExchange(request);
  if (response.status !== 429 && !(response.status === 503 && safeToRepeat)) return undefined;
  const seconds = retryAfterSeconds(response.headers.get("retry-after"));
  if (seconds === undefined || seconds * 1000 > maxDelayMs) return undefined;
  return seconds * 1000;
}

/**
 * Adds `Authorization: Bearer` to every request but the token exchange. After a 401
 * `INVALID_TOKEN` (expired early, signing key rotated, key revoked), forgets the token and sends
 * once more with a fresh one; a second refusal is returned.
 */
export function authorizing(send: Send, tokens: TokenSource, isTokenExchange: (request: Request) => boolean): Send {
  return async (request) => {
    if (isTokenExchange(request)) return send(request);
    const token = await tokens.get();
    const response = await send(withBearer(request.clone(), token));
    if (response.status !== 401 || !(await saysInvalidToken(response))) return response;
    await response.body?.cancel().catch(() => undefined);
    tokens.invalidate(token);
    return send(withBearer(request, await tokens.get()));
  };
}

function withBearer(request: Request, token: string): Request {
  request.headers.set("authorization", `Bearer ${token}`);
  return request;
}

async function saysInvalidToken(response: Response): Promise<boolean> {
  if (/error="invalid_token"/.test(response.headers.get("www-authenticate") ?? "")) return true;
  try {
    return ((await response.clone().json()) as { code?: unknown }).code === "INVALID_TOKEN";
  } catch {
    return false;
  }
}

/** Waits `ms`, or less when `signal` aborts (the caller checks it). */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
