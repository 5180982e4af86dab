/** An access token held with its expiry and the moment to renew it (ms since the epoch). */
export interface HeldToken {
  accessToken: string;
  /** When the API stops accepting it; Infinity when not known (kept until the API refuses it). */
  expiresAt: number;
  renewAt: number;
}

/**
 * The token a source holds, renewed by `fetch` once `renewAt` passes: concurrent callers share one
 * renewal, a renewal that fails early (its server busy) leaves the held token in use until a second
 * before it expires, and `invalidate` (after a 401) makes the next `get()` renew. Shared by the
 * `POST /auth` source (tokens.ts) and the app's own function (appTokens.ts).
 */
export function heldTokenSource(fetch: () => Promise<HeldToken>, now: () => number) {
  let current: HeldToken | undefined;
  let pending: Promise<HeldToken> | undefined;
  const renew = (): Promise<HeldToken> => {
    pending ??= fetch()
      .then((fresh) => {
        current = fresh;
        return fresh;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
  return {
    async get(): Promise<string> {
      const held = current;
      if (held && now() < held.renewAt) return held.accessToken;
      try {
        return (await renew()).accessToken;
      } catch (error) {
        if (held && current === held && now() < held.expiresAt - 1_000) return held.accessToken;
        throw error;
      }
    },
    invalidate(token: string): void {
      if (current?.accessToken === token) current = undefined;
    },
  };
}
