import { type AnyRoute, buildOpenApiDocument } from "@platform/http";
import { createLogger } from "@platform/log";
import type { Backends } from "../backends.js";
import { gatewayConfigSchema } from "../config.js";
import { unservedEventStreams } from "../routes/events/eventStreams.js";
import { apiRoutes } from "../routes/index.js";

const TITLE = "Chain data and cross-chain intents API";
const VERSION = "2.1.0";
const DESCRIPTION = [
  "Data API (/data/v1) about the Bittensor network and TAO, and the Service API (/intents/v1), the off-chain companion to ERC-7683 intents opened on-chain with FullSettler.open(...). Its changes are listed, version by version, in services/gateway/CHANGELOG.md; a member on its way out is marked deprecated and its answers carry Deprecation and Sunset headers.",
  "",
  "Errors are RFC 9457 problems (`application/problem+json`) with a stable `code`; the Problem schema lists the codes and `/problems/<code>` says what each means and what to do. Extension members of a problem are named in one style, camelCase (`retryAfterSeconds`, `requiredScope`, `violatedPolicies`, `blockNumber`), as the Terms and Conditions problem's `acceptedVersion` and `currentTcVersion` are; so is the `closed` event's `retryAfterSeconds` on the event streams. A browser page on an origin the gateway does not allow gets its CORS preflight refused with 403 ORIGIN_NOT_ALLOWED; 403 FORBIDDEN is only ever a key's missing scope (`requiredScope`).",
  "",
  "An operation's parameters are the complete list of the query parameters it takes: any other query parameter is refused with 400 UNKNOWN_PARAMETER naming each one, on every operation, event streams included (a cache-buster too: send `Cache-Control: no-cache` instead). A 400 refusing a request's inputs lists every mistake at once in `errors`, each `{pointer, detail}`: `pointer` is a JSON Pointer (RFC 6901) into the JSON body for a body member (`/order/fillDeadline`), `/query/<name>` or `/path/<name>` for a parameter; `code`, `detail` and `parameter` are the first mistake's.",
].join("\n");

/** The document `/openapi.json` serves for these routes, with the gateway's public URL as its server. */
export function gatewayDocument(routes: AnyRoute[], publicBaseUrl: string): Record<string, unknown> {
  return buildOpenApiDocument(
    {
      title: TITLE,
      version: VERSION,
      description: DESCRIPTION,
      serverUrl: publicBaseUrl,
      // A refused CORS preflight (http/cors.ts) answers outside every operation.
      otherProblemCodes: ["ORIGIN_NOT_ALLOWED"],
    },
    routes,
  );
}

/**
 * The document of the gateway's default configuration, without a server: what the build emits
 * (emit.ts) and the client is generated from. The routes only call their backends while answering
 * a request, so placeholders that throw if ever called stand in for the gRPC clients.
 */
export function defaultGatewayDocument(): Record<string, unknown> {
  const streams = unservedEventStreams(
    createLogger({ service: "gateway-openapi", level: "silent" }),
    gatewayConfigSchema.shape.EVENT_STREAMS_PER_KEY.parse(undefined),
  );
  return gatewayDocument(
    apiRoutes(placeholderBackends(), streams),
    gatewayConfigSchema.shape.PUBLIC_BASE_URL.parse(undefined),
  );
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
