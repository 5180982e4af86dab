import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/*
 * An in-process stand-in for the gateway on loopback, for the client's unit tests: `POST /auth`
 * as API.md describes it (API_KEY and REFRESH_TOKEN grants, short-lived tokens it really checks),
 * and protected routes the test defines, each answering only a valid bearer token.
 */

export const KEY = { id: "ak_test", secret: "sk_test_secret" };

export interface SeenRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The bearer token it carried. */
  token: string | undefined;
}

export type Handler = (request: SeenRequest, response: ServerResponse) => void | Promise<void>;

export interface FakeApi {
  url: string;
  /** Every grant asked for, in order: the request bodies of `POST /auth`. */
  grants: Array<Record<string, string>>;
  /** Every request to a protected route that carried a valid token. */
  calls: SeenRequest[];
  /** Requests refused with 401 (a missing, unknown, expired or revoked token). */
  refused: SeenRequest[];
  /** Lifetime of the access tokens it issues, in seconds. */
  ttlSeconds: number;
  /** Refuse REFRESH_TOKEN grants with 401 INVALID_REFRESH_TOKEN. */
  refuseRefresh: boolean;
  /** Refuse every access token, valid or not (a revoked key seen by the gateway). */
  refuseTokens: boolean;
  /** Forgets every access token issued so far, as if its signing key had been rotated out. */
  revokeTokens(): void;
  /** Serves `method path` (exact path, any query) to valid tokens. */
  route(method: string, path: string, handler: Handler): void;
  close(): Promise<void>;
}

export async function startFakeApi(): Promise<FakeApi> {
  const routes = new Map<string, Handler>();
  const accessTokens = new Map<string, number>();
  let issued = 0;
  const sockets = new Set<Socket>();
  const api: FakeApi = {
    url: "",
    grants: [],
    calls: [],
    refused: [],
    ttlSeconds: 900,
    refuseRefresh: false,
    refuseTokens: false,
    revokeTokens: () => accessTokens.clear(),
    route: (method, path, handler) => routes.set(`${method} ${path}`, handler),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  function issueToken(seen: SeenRequest, response: ServerResponse): void {
    const body = JSON.parse(seen.body) as Record<string, string>;
    api.grants.push(body);
    const knownKey = body.type === "API_KEY" && body.username === KEY.id && body.password === KEY.secret;
    const knownRefresh = body.type === "REFRESH_TOKEN" && body.username === KEY.id && !api.refuseRefresh;
    if (!knownKey && !knownRefresh) {
      const code = body.type === "API_KEY" ? "INVALID_CREDENTIALS" : "INVALID_REFRESH_TOKEN";
      sendProblem(response, 401, code, "refused", { "www-authenticate": 'ApiKey realm="auth"' });
      return;
    }
    issued += 1;
    const accessToken = `at-${issued}`;
    accessTokens.set(accessToken, Date.now() + api.ttlSeconds * 1000);
    sendJson(response, 200, {
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: String(api.ttlSeconds),
      ...(body.type === "API_KEY" ? { refresh_token: `rt-${issued}` } : {}),
    });
  }

  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const seen = await seenRequest(request);
    if (seen.method === "POST" && seen.url === "/auth") return issueToken(seen, response);
    const handler = routes.get(`${seen.method} ${seen.url.split("?")[0]}`);
    if (!handler) return sendProblem(response, 404, "NOT_FOUND", `no route ${seen.method} ${seen.url}`);
    const expiresAt = seen.token === undefined ? undefined : accessTokens.get(seen.token);
    if (api.refuseTokens || expiresAt === undefined || expiresAt <= Date.now()) {
      api.refused.push(seen);
      return sendProblem(response, 401, "INVALID_TOKEN", "the token is expired or unknown", {
        "www-authenticate": 'Bearer realm="api", error="invalid_token"',
      });
    }
    api.calls.push(seen);
    await handler(seen, response);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return api;
}

async function seenRequest(request: IncomingMessage): Promise<SeenRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const authorization = request.headers.authorization;
  return {
    method: request.method ?? "GET",
    url: request.url ?? "/",
    headers: request.headers,
    body: Buffer.concat(chunks).toString("utf8"),
    token: authorization?.startsWith("Bearer ") ? authorization.slice("Bearer ".length) : undefined,
  };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  contentType = "application/json",
): void {
  response.writeHead(status, { "content-type": contentType, "x-request-id": "req-test", ...headers });
  response.end(JSON.stringify(body));
}

export function sendProblem(
  response: ServerResponse,
  status: number,
  code: string,
  detail: string,
  headers: Record<string, string> = {},
  extras: Record<string, unknown> = {},
): void {
  sendJson(
    response,
    status,
    { ...extras, type: `/problems/${code.toLowerCase().replaceAll("_", "-")}`, title: code, status, detail, code },
    headers,
    "application/problem+json",
  );
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
