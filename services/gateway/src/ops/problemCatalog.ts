/** What a problem code means to a client: the page its `type` URL answers (ops/problemPages.ts). */
export interface ProblemDescription {
  /** The HTTP statuses it comes with. */
  statuses: readonly number[];
  /** When the API answers it. */
  when: string;
  /** What the client should do about it. */
  action: string;
}

const RETRY_AFTER = "Wait the seconds `Retry-After` gives, then send the same request again.";
const FIX_REQUEST = "Correct the request as `detail` says; sending it unchanged gets the same answer.";

/**
 * Every code the gateway answers with (the keys of http/problemTitles.ts; a test keeps the two,
 * and the OpenAPI document's codes, in step).
 */
export const PROBLEM_CATALOG: Readonly<Record<string, ProblemDescription>> = {
  INVALID_REQUEST: {
    statuses: [400],
    when: "The body is not JSON, not sent as `application/json`, or a field is missing or of the wrong type. Every mistake of the body is listed in `errors` (`pointer`, a JSON Pointer into the body, and `detail`).",
    action: `${FIX_REQUEST} The OpenAPI document gives each route's body schema.`,
  },
  INVALID_PARAMETER: {
    statuses: [400],
    when: "A known path or query parameter has a value the route does not accept (the extension member `parameter` names the first; `errors` lists every mistake, with pointers `/query/<name>` and `/path/<name>`).",
    action: `${FIX_REQUEST} The OpenAPI document gives each parameter's type, default and bounds.`,
  },
  UNKNOWN_PARAMETER: {
    statuses: [400],
    when: "The query names a parameter the operation does not take (a misspelt `limit`, a cache-buster): every route refuses them, event streams too, and `errors` names each one (`/query/<name>`). An operation's parameters in the OpenAPI document are the complete list.",
    action:
      "Remove the parameters `errors` names, or correct their spelling; to bypass caches send `Cache-Control: no-cache` rather than a parameter.",
  },
  INVALID_ADDRESS: {
    statuses: [400],
    when: "An address is not a well-formed EVM (0x, 20 bytes) or SS58 address, as the route expects.",
    action:
      "Send a valid address; EVM addresses are accepted in any case. A valid address with no activity is not an error: it answers 200 with zero balances.",
  },
  INVALID_CURSOR: {
    statuses: [400],
    when: "The `cursor` is not one this route issued for the same query, or it was altered.",
    action:
      "Use cursors only as given (`page.next_cursor` or `_links.next`) with the same other parameters, or start again without a cursor.",
  },
  WINDOW_TOO_LARGE: {
    statuses: [400],
    when: "A history route's `start`/`end` window is longer than the route allows (the member `maxWindowSeconds` says how long).",
    action: "Split the time range into windows within the maximum and request each.",
  },
  NOT_FOUND: {
    statuses: [404],
    when: "No route has this path, or the resource it names does not exist.",
    action: "Check the path against the OpenAPI document (`/openapi.json`); the route list is at `/docs`.",
  },
  METHOD_NOT_ALLOWED: {
    statuses: [405],
    when: "The path exists but not with this method.",
    action: "Use one of the methods the `Allow` header lists.",
  },
  PAYLOAD_TOO_LARGE: {
    statuses: [413],
    when: "The request body is larger than the gateway accepts.",
    action: "Send a smaller body; no route needs more than a few kilobytes.",
  },
  REQUEST_HEADERS_TOO_LARGE: {
    statuses: [431],
    when: "The request's headers are larger than the server reads.",
    action: "Send fewer or shorter headers (large cookies are the usual cause).",
  },
  REQUEST_TIMEOUT: {
    statuses: [408],
    when: "The request's headers, or the whole request, did not arrive within the server's timeouts; the connection is closed.",
    action: "Send the request again on a new connection, without pausing while sending it.",
  },
  MALFORMED_REQUEST: {
    statuses: [400],
    when: "The bytes received are not a valid HTTP request; the connection is closed.",
    action: "Fix the HTTP client or the proxy in front of it; an ordinary HTTP library never gets this.",
  },
  UNAUTHENTICATED: {
    statuses: [401],
    when: "A protected route was called without `Authorization: Bearer <access_token>`.",
    action: "Exchange the API key for a token with `POST /auth` and send it in the `Authorization` header.",
  },
  UNSUPPORTED_GRANT_TYPE: {
    statuses: [400],
    when: "`POST /auth` got a `type` other than `API_KEY` or `REFRESH_TOKEN`.",
    action:
      "Send `type: API_KEY` with the key id and secret, or `type: REFRESH_TOKEN` with the key id and a refresh token.",
  },
  INVALID_CREDENTIALS: {
    statuses: [401],
    when: "`POST /auth` with an unknown key id, a wrong secret, or a revoked or disabled key (the answer does not say which). Repeated failures lock the key id or the client address out for a while.",
    action:
      "Check the key id and secret; do not retry in a loop, which extends a lockout. Ask for a new key if it was revoked.",
  },
  INVALID_REFRESH_TOKEN: {
    statuses: [401],
    when: "`POST /auth` with a refresh token that is unknown, expired, revoked, or issued to another key id.",
    action: "Exchange the API key itself for a new pair of tokens.",
  },
  INVALID_TOKEN: {
    statuses: [401],
    when: "The bearer token is malformed, expired, badly signed or for another audience, or its key was revoked or its secret rotated.",
    action:
      "Get a new access token with `POST /auth` (with the refresh token, or the key) and retry once; if that fails too, the key is no longer valid.",
  },
  FORBIDDEN: {
    statuses: [403],
    when: "The API key lacks the route's scope (`data:read`, `intents:read` or `intents:write`; the member `requiredScope` names it). A refused call still spends one unit of the key's budget.",
    action: "Use a key that has the scope (scopes are fixed when a key is made).",
  },
  ORIGIN_NOT_ALLOWED: {
    statuses: [403],
    when: "A browser page's origin is not one the gateway lets call the API (`CORS_ALLOWED_ORIGINS`): its CORS preflight is refused, before any key or route is looked at.",
    action:
      "Call the API from the page's own backend, or ask the operator to allow the page's origin; no key or scope changes this answer.",
  },
  KEY_ORIGIN_NOT_ALLOWED: {
    statuses: [401, 403],
    when: "A browser key (publishable `pk_` secret) was used from an `Origin` outside the key's allowed origins, or without an `Origin` header: at `POST /auth` (401, the credentials themselves were right) or with one of its access tokens on a protected route (403; a refused call spends one unit of the key's budget). Browsers send `Origin` on every cross-origin call and pages cannot change it.",
    action:
      "Call the API from a page on one of the key's origins (cross-origin, so the browser sends `Origin`), or have the operator create a browser key for this origin (`keys create --kind browser --origin …`). A server has no business with a browser key: use an `sk_` server key there.",
  },
  RATE_LIMITED: {
    statuses: [429],
    when: "The key's request budget is spent (the `RateLimit` and `RateLimit-Policy` headers show it, the members `violatedPolicies` and `retryAfterSeconds` too), or the key holds as many event streams or chain-touching calls at once as it may.",
    action: `${RETRY_AFTER} Spread requests out, or ask for a higher tier.`,
  },
  TC_NOT_ACCEPTED: {
    statuses: [403],
    when: "An intent was notified for a wallet that has not accepted the current Terms and Conditions (members `acceptedVersion` and `currentTcVersion`).",
    action:
      "Have the wallet accept the current version (`POST /intents/v1/tc/nonce`, then sign and `POST /intents/v1/tc/accept`), then notify again.",
  },
  TC_VERSION_MISMATCH: {
    statuses: [409],
    when: "The signed acceptance names another version of the Terms and Conditions than the current one (its single `coin-tc:v<N>` resource).",
    action: "Get a new nonce, which names the current version, and have the wallet sign a message for it.",
  },
  SIWE_MALFORMED: {
    statuses: [400],
    when: "The acceptance message is not a well-formed EIP-4361 (Sign-In with Ethereum) message with the fields the nonce answer lists.",
    action:
      "Build the message from exactly the fields `POST /intents/v1/tc/nonce` returned, and have the wallet sign it again.",
  },
  SIWE_SIGNATURE_INVALID: {
    statuses: [400],
    when: "The signature does not verify for the message's address (EOA, ERC-1271 or ERC-6492 smart wallet).",
    action: "Sign the exact message text sent, with the wallet whose address it names.",
  },
  SIWE_DOMAIN_MISMATCH: {
    statuses: [400],
    when: "The message's `domain` is not the one this deployment accepts.",
    action:
      "Use the `domain` the nonce answer gives; it comes from the server's configuration, never from the request.",
  },
  SIWE_URI_MISMATCH: {
    statuses: [400],
    when: "The message's `uri` is not the one this deployment accepts.",
    action: "Use the `uri` the nonce answer gives.",
  },
  SIWE_CHAIN_UNSUPPORTED: {
    statuses: [400],
    when: "The message's `chainId` is not one of the chains this deployment accepts acceptances on.",
    action: "Use one of the chain ids the nonce answer lists.",
  },
  SIWE_EXPIRED: {
    statuses: [400],
    when: "The message's `expirationTime` has passed, or is more than 10 minutes after its `issuedAt`.",
    action: "Get a new nonce and sign a fresh message with a short expiry.",
  },
  SIWE_NOT_YET_VALID: {
    statuses: [400],
    when: "The message's `notBefore` is still ahead, or its `issuedAt` is more than 5 minutes away from the server's clock.",
    action: "Set `issuedAt` to the current time (check the device's clock) and sign again.",
  },
  NONCE_INVALID_OR_USED: {
    statuses: [400],
    when: "The message's nonce was not issued to this wallet, has expired, or was already used (each is consumed once).",
    action: "Get a new nonce with `POST /intents/v1/tc/nonce` and sign a new message with it.",
  },
  UNSUPPORTED_CHAIN: {
    statuses: [400],
    when: "A chain id is not one of this deployment's intents chains.",
    action: "Use a chain of this deployment; its deployment data lists them.",
  },
  UNSUPPORTED_ROUTE: {
    statuses: [400],
    when: "No route is served from this origin chain and token to this destination chain and token (the problem lists the routes served).",
    action: "Quote one of the routes the deployment data (or this problem's members) lists.",
  },
  AMOUNT_OUTSIDE_LIMITS: {
    statuses: [400],
    when: "The amount is below the route's minimum or above its maximum (members give the limits).",
    action: "Send an amount within the limits, or split it.",
  },
  UNSUPPORTED_ORDER_DATA_TYPE: {
    statuses: [400],
    when: "The order's `orderDataType` is not one the FullSettler of this deployment accepts.",
    action: "Use the `orderDataType` and `orderData` a quote returned.",
  },
  QUOTE_NOT_FOUND: {
    statuses: [404],
    when: "No quote has this id under the calling API key: it never existed, was made by another key, or is older than the quotes kept.",
    action: "Ask for a new quote with `POST /intents/v1/quotes`.",
  },
  INTENT_NOT_FOUND: {
    statuses: [404],
    when: "No intent with this order id has been seen on chain or notified.",
    action:
      "Check the order id (preflight gives it before opening). Right after opening, notify with `POST /intents/v1/intents` or retry in a few seconds.",
  },
  TRANSACTION_NOT_FOUND: {
    statuses: [404],
    when: "The origin chain knows no such transaction, neither pending nor mined.",
    action:
      "Notify after broadcasting the transaction; if it was just sent through another node, retry in a few seconds.",
  },
  TX_SENDER_MISMATCH: {
    statuses: [403],
    when: "The notified transaction was not sent by the `userAddress` of the notification.",
    action: "Notify with the address that sent the transaction; only its sender may notify it.",
  },
  NETUID_NOT_FOUND: {
    statuses: [404],
    when: "No subnet has this netuid on the network.",
    action: "List the subnets (`GET /data/v1/subnets`) and use one of their netuids.",
  },
  BLOCK_NOT_YET_INDEXED: {
    statuses: [404],
    when: "`block_number` names a block above the newest one the read behind the route has indexed (or `finalized`, while no block is known to be finalized yet). The problem carries `blockNumber` and `headBlockNumber`.",
    action:
      "Ask again once the block is indexed (a block every 12 s on Finney), or read without `block_number` for the newest state.",
  },
  BLOCK_BEFORE_HISTORY: {
    statuses: [404],
    when: "`block_number` names a block before the first block the platform followed, or older than the history the deployment keeps. The problem carries `blockNumber`.",
    action: "Ask for a later block; the answer does not change by retrying.",
  },
  TIME_NOT_YET_INDEXED: {
    statuses: [404],
    when: "`at` names a time later than now. The problem carries `at`.",
    action: "Ask for a time that has passed, or leave `at` out for the newest state.",
  },
  TIME_BEFORE_HISTORY: {
    statuses: [404],
    when: "`at` names a time before the first price round the platform followed, or older than the history the deployment keeps. The problem carries `at`.",
    action: "Ask for a later time; the answer does not change by retrying.",
  },
  READ_MODEL_UNAVAILABLE: {
    statuses: [503],
    when: "The data behind the route could not be read for a moment, or has seen no block yet.",
    action: `${RETRY_AFTER} Without the header, retry after a second or two, backing off.`,
  },
  REBUILDING: {
    statuses: [503],
    when: "The read model (or the API-key registry) behind the route is being rebuilt after its store was lost; answers resume once it has caught up, never showing older data than before.",
    action: RETRY_AFTER,
  },
  GRANTS_EXHAUSTED: {
    statuses: [503],
    when: "`POST /auth` issued as many tokens for this API key this minute as it may.",
    action:
      "Reuse the access token already issued until it expires, renewing with the refresh token; exchange the key again after `Retry-After`.",
  },
  UNAVAILABLE: {
    statuses: [503],
    when: "A service or chain node behind the route is down or overloaded; other routes may still answer.",
    action: `${RETRY_AFTER} Without the header, back off exponentially.`,
  },
  UPSTREAM_TIMEOUT: {
    statuses: [504],
    when: "A service behind the route did not answer within its deadline.",
    action: "Retry with backoff; a read is safe to repeat, and a notification is idempotent on its transaction.",
  },
  INTERNAL: {
    statuses: [500],
    when: "An unexpected error in the platform.",
    action: "Retry later; if it persists, report it with the answer's `X-Request-Id`, which identifies it in the logs.",
  },
};
