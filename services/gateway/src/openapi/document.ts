import { type AnyRoute, buildOpenApiDocument } from "@platform/http";
import { createLogger } from "@platform/log";
import type { Backends } from "../backends.js";
import { gatewayConfigSchema } from "../config.js";
import { unservedEventStreams } from "../routes/events/eventStreams.js";
import { apiRoutes } from "../routes/index.js";
import { withCodeSamples } from "./codeSamples.js";

const TITLE = "Chain data and cross-chain intents API";
const VERSION = "2.3.0";
const DESCRIPTION_PARTS = [
  "Data API (/data/v1) about the Bittensor network and TAO, and the Service API (/intents/v1), the off-chain companion to ERC-7683 intents opened on-chain with FullSettler.open(...). Its changes are listed, version by version, in services/gateway/CHANGELOG.md; a member on its way out is marked deprecated and its answers carry Deprecation and Sunset headers.",
  "",
  "Errors are RFC 9457 problems (`application/problem+json`) with a stable `code`; the Problem schema lists the codes and `/problems/<code>` says what each means and what to do. Extension members of a problem are named in one style, camelCase (`retryAfterSeconds`, `requiredScope`, `violatedPolicies`, `blockNumber`), as the Terms and Conditions problem's `acceptedVersion` and `currentTcVersion` are; so is the `closed` event's `retryAfterSeconds` on the event streams. A browser page on an origin the gateway does not allow gets its CORS preflight refused with 403 ORIGIN_NOT_ALLOWED; 403 FORBIDDEN is only ever a key's missing scope (`requiredScope`).",
  "",
  "An operation's parameters are the complete list of the query parameters it takes: any other query parameter is refused with 400 UNKNOWN_PARAMETER naming each one, on every operation, event streams included (a cache-buster too: send `Cache-Control: no-cache` instead). A 400 refusing a request's inputs lists every mistake at once in `errors`, each `{pointer, detail}`: `pointer` is a JSON Pointer (RFC 6901) into the JSON body for a body member (`/order/fillDeadline`), `/query/<name>` or `/path/<name>` for a parameter; `code`, `detail` and `parameter` are the first mistake's.",
];

/**
 * The introduction's quickstart, with the document's server as the client's base URL: its
 * TypeScript is type-checked against the client by libs/client/src/codeSamples.test.ts.
 */
function quickstart(publicBaseUrl: string): string[] {
  return [
    "",
    "## Quickstart",
    "",
    "1. **Get the client.** `@chain-intents/client` is this API's typed TypeScript client (ESM, Node 20.19 or newer, and browsers through any bundler). It is not in a registry yet: run `pnpm pack` in `libs/client` of the platform's repository, then `npm install ./chain-intents-client-<version>.tgz` in your project. Every operation below has a TypeScript sample that uses it.",
    "2. **Get an API key**, an id (`ak_…`) and a secret (`sk_…`), from the gateway's operator. Keep the secret on a server: never ship an `sk_` secret to a browser page. The client exchanges the key for short-lived access tokens at `POST /auth` and renews them itself; without the client, `POST /auth` gives the bearer token every other operation takes.",
    "3. **Call the API.** Paths, parameters, bodies and answers are typed from this document; a refusal is thrown as a `ProblemError` with its `code`; the event streams are async iterators that resume by themselves, each event's `data` typed by its name.",
    "",
    "```ts",
    'import { createClient, isProblem } from "@chain-intents/client";',
    "",
    "const client = createClient({",
    `  baseUrl: ${JSON.stringify(publicBaseUrl)},`,
    "  apiKey: { id: process.env.API_KEY_ID!, secret: process.env.API_KEY_SECRET! },",
    "});",
    "",
    "// A read: the success body, typed.",
    'const price = await client.get("/data/v1/coin/price/latest");',
    "console.log(price.price, price.as_of?.block_number);",
    "",
    "// A list: every item of every page, following the cursors.",
    'for await (const pool of client.paginate("/data/v1/subnet-pools/latest")) console.log(pool.netuid, pool.price_tao);',
    "",
    "// A refusal: an RFC 9457 problem, thrown with its stable code.",
    "try {",
    '  await client.get("/data/v1/accounts/{address}/balance/latest", { params: { path: { address: "not-an-address" } } });',
    "} catch (error) {",
    '  if (!isProblem(error, "INVALID_ADDRESS")) throw error;',
    "  console.log(error.code, error.detail);",
    "}",
    "",
    "// Live changes: resumes after a dropped connection with no gap and no repeat.",
    'for await (const event of client.events.data({ topics: ["prices"] })) {',
    '  if (event.type === "price") {',
    "    console.log(event.data.symbol, event.data.price);",
    "    break;",
    "  }",
    "}",
    "```",
    "",
    "4. **Open an intent** (the Service API): ask for a quote (`POST /intents/v1/quotes`), check the order with `POST /intents/v1/preflight` (it gives the `orderId`), build the `approve` and `FullSettler.open` calls with the client's `buildOpenCalls`, send them from the user's wallet, and watch the order with `GET /intents/v1/events?orderId=` until a final state. The client's README has the whole program.",
  ];
}

/** The document `/openapi.json` serves for these routes, with the gateway's public URL as its server. */
export function gatewayDocument(routes: AnyRoute[], publicBaseUrl: string): Record<string, unknown> {
  const document = buildOpenApiDocument(
    {
      title: TITLE,
      version: VERSION,
      description: [...DESCRIPTION_PARTS, ...quickstart(publicBaseUrl)].join("\n"),
      serverUrl: publicBaseUrl,
      // A refused CORS preflight (http/cors.ts) answers outside every operation.
      otherProblemCodes: ["ORIGIN_NOT_ALLOWED"],
    },
    routes,
  );
  return withCodeSamples(document, publicBaseUrl);
}

/**
 * The document of the gateway's default configuration, without a server: what the build emits
 * (emit.ts) and the client is generated from. The routes only call their backends while answering
 * a request, so placeholders that throw if ever called stand in for the gRPC clients.
 */
export function defaultGatewayDocument(): Record<string, unknown> {
  return gatewayDocument(defaultGatewayRoutes(), gatewayConfigSchema.shape.PUBLIC_BASE_URL.parse(undefined));
}

/**
 * The routes of the gateway's default configuration over backends that throw if ever called and
 * event streams that are never served: to document them, or serve the reference page alone.
 */
export function defaultGatewayRoutes(): AnyRoute[] {
  const streams = unservedEventStreams(
    createLogger({ service: "gateway-openapi", level: "silent" }),
    gatewayConfigSchema.shape.EVENT_STREAMS_PER_KEY.parse(undefined),
  );
  return apiRoutes(placeholderBackends(), streams);
}

function placeholderBackends(): Backends {
  const unusable = new Proxy(
    {},
    {
      get(_target, property) {
        throw new Error(`placeholder backend: ${String(property)} is not available while building the document`);
      },
    },
  );
  return new Proxy({} as Backends, { get: () => unusable });
}
