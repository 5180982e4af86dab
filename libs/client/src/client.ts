import createFetchClient, { type Client, type FetchResponse, type MaybeOptionalInit } from "openapi-fetch";
import { createAppTokenSource, type GetAccessToken } from "./appTokens.js";
import {
  DATA_EVENT_TYPES,
  type DataStreamEvent,
  type DataTopic,
  type EventStreamOptions,
  eventStream,
  INTENTS_EVENT_TYPES,
  type IntentsStreamEvent,
  type ReconnectOptions,
} from "./events.js";
import type { paths } from "./generated/schema.js";
import { type PageReader, walkItems, walkPages } from "./pages.js";
import { problemErrorOf, readProblem } from "./problem.js";
import { type ApiKeyCredentials, createTokenSource, type RefreshTokenCredentials } from "./tokens.js";
import { authorizing, type RetryOptions, retrying, type Send } from "./transport.js";

type Media = `${string}/${string}`;
type Method = "get" | "post";

/** Paths of the API with an operation for `M`. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];
export type GetPath = PathsWith<"get">;
export type PostPath = PathsWith<"post">;

type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type QueryOf<P extends GetPath> =
  Operation<P, "get"> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The list routes: the GET routes that take a `cursor`. */
export type ListPath = {
  [P in GetPath]: [QueryOf<P>] extends [never] ? never : "cursor" extends keyof QueryOf<P> ? P : never;
}[GetPath];

/** Path and query parameters, body and fetch options of one call, as openapi-fetch takes them. */
export type CallInit<P extends keyof paths, M extends Method> = MaybeOptionalInit<paths[P], M>;
type CallArgs<P extends keyof paths, M extends Method> =
  undefined extends CallInit<P, M> ? [init?: CallInit<P, M>] : [init: CallInit<P, M>];

/** The success body of an operation, as the OpenAPI document types it. */
export type ResponseBody<P extends keyof paths, M extends Method> = Exclude<
  FetchResponse<Operation<P, M>, Record<string, never>, Media>["data"],
  undefined
>;

/**
 * `P` when the API has a `M` operation at that path; else a message naming `P`, which is what the
 * compiler then reports (a misspelt path would otherwise leave only an arity error).
 */
export type KnownPath<P extends string, M extends Method> =
  P extends PathsWith<M> ? P : `not a ${Uppercase<M>} path of the API: ${P}`;
/** `P` when it is a list route; else a message naming it. */
export type KnownListPath<P extends string> = P extends ListPath
  ? P
  : `not a list path of the API (a GET route that takes a cursor): ${P}`;
/** A call's arguments after its path: none to check where the path is not the API's (its error is the path's). */
type ArgsOf<P extends string, M extends Method> = P extends PathsWith<M> ? CallArgs<P, M> : [init?: unknown];
type BodyOf<P extends string, M extends Method> = P extends PathsWith<M> ? ResponseBody<P, M> : never;

/** The type of a list route's items, where the document describes them. */
export type ItemOf<P extends ListPath> =
  ResponseBody<P, "get"> extends { _embedded: { items: Array<infer Item> } } ? Item : unknown;

export interface ClientOptions {
  /** The gateway's address, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** An API key, exchanged for tokens with `POST /auth`; renewals use the refresh token it returns. */
  apiKey?: ApiKeyCredentials;
  /** A refresh token and its key id, for a client that does not hold the key's secret. */
  refreshToken?: RefreshTokenCredentials;
  /**
   * Instead of apiKey/refreshToken: the app's own function for an access token (e.g. from its
   * backend, which holds the secret key). See appTokens.ts.
   */
  getAccessToken?: GetAccessToken;
  /** Sends the requests; default `globalThis.fetch`. */
  fetch?: (input: Request) => Promise<Response>;
  /** Waiting out 429 (and 503 where repeating is safe) by `Retry-After`; `false` returns them at once. */
  retry?: RetryOptions | false;
  /** Reconnection of the event streams. */
  streams?: ReconnectOptions;
  /** How long before expiry a token is renewed: default 30 s, at most a tenth of its lifetime. */
  refreshBeforeExpiryMs?: number;
}

export interface ApiClient {
  /**
   * The openapi-fetch client over the same transport (tokens, retries): `{data, error, response}`
   * for every operation, no throwing, for callers that read statuses and headers themselves.
   */
  readonly api: Client<paths, Media>;
  /** Calls a GET operation: the success body, or a thrown ProblemError. */
  get<P extends string>(path: KnownPath<P, "get">, ...init: ArgsOf<P, "get">): Promise<BodyOf<P, "get">>;
  /** Calls a POST operation: the success body, or a thrown ProblemError. */
  post<P extends string>(path: KnownPath<P, "post">, ...init: ArgsOf<P, "post">): Promise<BodyOf<P, "post">>;
  /** Every page of a list route, following `_links.next` from the page `init` asks for. */
  pages<P extends string>(
    path: KnownListPath<P>,
    ...init: ArgsOf<P, "get">
  ): AsyncGenerator<BodyOf<P, "get">, void, undefined>;
  /** Every item of every page of a list route, in order. */
  paginate<P extends string>(
    path: KnownListPath<P>,
    ...init: ArgsOf<P, "get">
  ): AsyncGenerator<P extends ListPath ? ItemOf<P> : never, void, undefined>;
  readonly events: {
    /** `GET /intents/v1/events`: the status changes of one user's intents, or of one order. */
    intents(
      filter: { userAddress: string; orderId?: never } | { orderId: string; userAddress?: never },
      options?: EventStreamOptions,
    ): AsyncGenerator<IntentsStreamEvent, void, undefined>;
    /** `GET /data/v1/events`: new heads, pool snapshots and prices. */
    data(
      filter: { topics: readonly DataTopic[] },
      options?: EventStreamOptions,
    ): AsyncGenerator<DataStreamEvent, void, undefined>;
  };
  /** A valid access token (exchanged or renewed first when needed). */
  accessToken(): Promise<string>;
  /** Sends any request to the API with a bearer token, renewal on 401 and retries; returns the answer as it is. */
  fetch(request: Request): Promise<Response>;
}

/**
 * A client of the API: the generated types over openapi-fetch, plus the token exchange and its
 * renewal, retries after 429, pagination, typed problems and the event streams.
 */
export function createClient(options: ClientOptions): ApiClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const authUrl = `${baseUrl}/auth`;
  const isTokenExchange = (request: Request) => request.method === "POST" && request.url.split("?")[0] === authUrl;
  const transport: Send = options.fetch ?? ((request) => globalThis.fetch(request));
  const retry = options.retry === false ? { maxRetries: 0 } : options.retry;
  if (options.getAccessToken && (options.apiKey || options.refreshToken))
    throw new TypeError("createClient takes getAccessToken or apiKey/refreshToken, not both");
  const tokens = options.getAccessToken
    ? createAppTokenSource({
        getAccessToken: options.getAccessToken,
        refreshBeforeExpiryMs: options.refreshBeforeExpiryMs,
      })
    : createTokenSource({
        authUrl,
        apiKey: options.apiKey,
        refreshToken: options.refreshToken,
        send: retrying(transport, retry, isTokenExchange),
        refreshBeforeExpiryMs: options.refreshBeforeExpiryMs,
      });
  // Streams get the token handling but not the retries: a refused stream is the caller's to know.
  const authorized = authorizing(transport, tokens, isTokenExchange);
  const send = retrying(authorized, retry, isTokenExchange);
  const api = createFetchClient<paths, Media>({ baseUrl, fetch: send });
  const call = operationCaller(api);
  const reader = (path: string, init: CallInit<GetPath, "get"> | undefined): PageReader => ({
    read: (cursor) => call("GET", path, cursor === undefined ? init : withCursor(init, cursor)),
    follow: async (href) => {
      const signal = init?.signal ?? null;
      const response = await send(
        new Request(joinUrl(baseUrl, href), { headers: { accept: "application/hal+json, application/json" }, signal }),
      );
      if (!response.ok) throw await readProblem(response);
      return response.json();
    },
  });
  const streamUrl = (path: string, query: string) => `${baseUrl}${path}?${query}`;
  return {
    api,
    get: (path, ...[init]) => call("GET", path, init) as never,
    post: (path, ...[init]) => call("POST", path, init) as never,
    pages: (path, ...[init]) => walkPages(reader(path, init as CallInit<GetPath, "get">)) as never,
    paginate: (path, ...[init]) => walkItems(reader(path, init as CallInit<GetPath, "get">)) as never,
    events: {
      intents: (filter, streamOptions) =>
        eventStream<IntentsStreamEvent>(
          authorized,
          streamUrl(
            "/intents/v1/events",
            filter.userAddress === undefined
              ? `orderId=${encodeURIComponent(filter.orderId)}`
              : `userAddress=${encodeURIComponent(filter.userAddress)}`,
          ),
          INTENTS_EVENT_TYPES,
          { ...options.streams, ...streamOptions },
        ),
      data: (filter, streamOptions) =>
        eventStream<DataStreamEvent>(
          authorized,
          streamUrl("/data/v1/events", `topics=${filter.topics.map(encodeURIComponent).join(",")}`),
          DATA_EVENT_TYPES,
          { ...options.streams, ...streamOptions },
        ),
    },
    accessToken: () => tokens.get(),
    fetch: send,
  };
}

type LooseCall = (path: string, init?: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** Calls an operation through openapi-fetch: the body of a success, else its ProblemError thrown. */
function operationCaller(api: Client<paths, Media>) {
  return async (method: "GET" | "POST", path: string, init: unknown): Promise<unknown> => {
    const { data, error, response } = await (api[method] as LooseCall)(path, init);
    if (!response.ok) throw problemErrorOf(response, error);
    return data;
  };
}

function withCursor(init: CallInit<GetPath, "get"> | undefined, cursor: string): unknown {
  const params = (init as { params?: { query?: Record<string, unknown> } } | undefined)?.params;
  return { ...init, params: { ...params, query: { ...params?.query, cursor } } };
}

/** A link of the API (a path from the server's root) as a URL under `baseUrl`, which may carry a path prefix. */
function joinUrl(baseUrl: string, href: string): string {
  if (/^https?:\/\//i.test(href)) return href;
  return `${baseUrl}${href.startsWith("/") ? href : `/${href}`}`;
}
