import { type HeldToken, heldTokenSource } from "./heldToken.js";
import type { TokenSource } from "./tokens.js";

/**
 * What an app's `getAccessToken` returns: the access token alone, or with the moment it expires.
 * `expiresAt` is a `Date` or milliseconds since the epoch (as `Date.now()` counts). A backend that
 * calls `POST /auth` itself can pass on `Date.now() + Number(answer.expires_in) * 1000`.
 */
export type AppAccessToken = string | { accessToken: string; expiresAt?: Date | number | undefined };

/**
 * Supplied by the app, usually a call to its own backend, which holds the `sk_` secret and mints
 * short-lived tokens with `POST /auth`. The client calls it when it has no valid token, and once
 * more after the API refuses a token with 401 INVALID_TOKEN. It must not return a token it has
 * already seen refused.
 */
export type GetAccessToken = () => Promise<AppAccessToken>;

export interface AppTokenSourceOptions {
  getAccessToken: GetAccessToken;
  /** How long before `expiresAt` the function is called again: default 30 s, at most a tenth of the lifetime left when it was got. */
  refreshBeforeExpiryMs?: number | undefined;
  now?: () => number;
}

/**
 * A TokenSource over the app's own function instead of `POST /auth`: concurrent callers share one
 * call, a token is never used at or past the expiry the app gave, and `invalidate` (after a 401)
 * makes the next `get()` call the function again.
 */
export function createAppTokenSource(options: AppTokenSourceOptions): TokenSource {
  const now = options.now ?? Date.now;
  const fetchToken = async (): Promise<HeldToken> => {
    const gotAt = now();
    const { accessToken, expiresAt } = normalized(await options.getAccessToken());
    if (expiresAt <= gotAt) throw new TypeError("getAccessToken returned a token that has already expired");
    const margin = Math.min(options.refreshBeforeExpiryMs ?? 30_000, (expiresAt - gotAt) / 10);
    return { accessToken, expiresAt, renewAt: expiresAt - margin };
  };
  return heldTokenSource(fetchToken, now);
}

function normalized(answer: AppAccessToken): { accessToken: string; expiresAt: number } {
  const accessToken = typeof answer === "string" ? answer : answer?.accessToken;
  if (typeof accessToken !== "string" || accessToken.trim() === "")
    throw new TypeError("getAccessToken must return a non-empty access token (a string or { accessToken })");
  const given = typeof answer === "string" ? undefined : answer.expiresAt;
  const expiresAt = given === undefined ? Number.POSITIVE_INFINITY : Number(given);
  if (Number.isNaN(expiresAt)) throw new TypeError("getAccessToken returned an expiresAt that is not a time");
  return { accessToken, expiresAt };
}
