import { type HeldToken, heldTokenSource } from "./heldToken.js";
import { isProblem, readProblem } from "./problem.js";

/** An API key: its id and secret, exchanged for tokens with `POST /auth` (`API_KEY` grant). */
export interface ApiKeyCredentials {
  id: string;
  secret: string;
}

/** A refresh token and the key id it was issued to (`REFRESH_TOKEN` grant). */
export interface RefreshTokenCredentials {
  keyId: string;
  token: string;
}

export interface TokenSourceOptions {
  /** The absolute URL of `POST /auth`. */
  authUrl: string;
  apiKey?: ApiKeyCredentials | undefined;
  refreshToken?: RefreshTokenCredentials | undefined;
  /** Sends a request without a bearer token (the retrying transport). */
  send: (request: Request) => Promise<Response>;
  /** How long before expiry a token is renewed: default 30 s, at most a tenth of its lifetime. */
  refreshBeforeExpiryMs?: number | undefined;
  now?: () => number;
}

/** Access tokens for the protected routes, exchanged once and renewed before they expire. */
export interface TokenSource {
  /** A valid access token; exchanges first when there is none or it is about to expire. Concurrent callers share one exchange. */
  get(): Promise<string>;
  /** Forgets `token` after the API refused it (401 INVALID_TOKEN): the next get() exchanges anew. */
  invalidate(token: string): void;
}

interface TokenAnswer {
  access_token: string;
  expires_in: string;
  refresh_token?: string;
}

/**
 * Renews with the refresh token whenever it has one (the one it was given, else the one the first
 * `API_KEY` grant returned): refresh grants do not spend the key's API_KEY grant budget. When the
 * refresh token is refused (expired, revoked) and the key secret is known, it falls back to it.
 */
export function createTokenSource(options: TokenSourceOptions): TokenSource {
  if (!options.apiKey && !options.refreshToken)
    throw new TypeError("createClient needs apiKey or refreshToken (or getAccessToken)");
  const now = options.now ?? Date.now;
  const keyId = options.apiKey?.id ?? options.refreshToken!.keyId;
  let refreshToken = options.refreshToken?.token;

  async function exchange(): Promise<HeldToken> {
    if (refreshToken !== undefined) {
      try {
        return await grant({ type: "REFRESH_TOKEN", username: keyId, refresh_token: refreshToken });
      } catch (error) {
        if (!options.apiKey || !isProblem(error, "INVALID_REFRESH_TOKEN")) throw error;
        refreshToken = undefined;
      }
    }
    const { id, secret } = options.apiKey!;
    return grant({ type: "API_KEY", username: id, password: secret });
  }

  async function grant(body: Record<string, string>): Promise<HeldToken> {
    const sentAt = now();
    const response = await options.send(
      new Request(options.authUrl, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(body),
      }),
    );
    if (!response.ok) throw await readProblem(response);
    const answer = (await response.json()) as TokenAnswer;
    if (answer.refresh_token !== undefined) refreshToken = answer.refresh_token;
    const lifetimeMs = Number(answer.expires_in) * 1000;
    const margin = Math.min(options.refreshBeforeExpiryMs ?? 30_000, lifetimeMs / 10);
    return { accessToken: answer.access_token, expiresAt: sentAt + lifetimeMs, renewAt: sentAt + lifetimeMs - margin };
  }

  return heldTokenSource(exchange, now);
}
