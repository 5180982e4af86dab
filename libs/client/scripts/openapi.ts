import { buildOpenApiDocument } from "@platform/http";
import { createLogger } from "@platform/log";
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from "openapi-typescript";
import type { Backends } from "../../../services/gateway/src/backends.js";
import { gatewayConfigSchema } from "../../../services/gateway/src/config.js";
import { unservedEventStreams } from "../../../services/gateway/src/routes/events/index.js";
import { apiRoutes } from "../../../services/gateway/src/routes/index.js";

/**
 * What the gateway's `/openapi.json` says (services/gateway/src/app.ts builds it with the same
 * function over the same routes), with the gateway's default configuration.
 */
const INFO = {
  title: "Chain data and cross-chain intents API",
  version: "1.0.0",
  description:
    "Data API (/data/v1) about the Bittensor network and TAO, and the Service API (/intents/v1), the off-chain companion to ERC-7683 intents opened on-chain with FullSettler.open(...).",
  serverUrl: gatewayConfigSchema.shape.PUBLIC_BASE_URL.parse(undefined),
};

/** The client's two generated files, as text. */
export interface GeneratedFiles {
  /** `libs/client/openapi.json`: the document, as the gateway serves it, pretty-printed. */
  openapiJson: string;
  /** `libs/client/src/generated/schema.ts`: its types, by openapi-typescript. */
  schemaTs: string;
}

/**
 * Builds the document without a server: the routes only call their backends while answering a
 * request, so placeholders that throw if ever called stand in for the gRPC clients.
 */
export function buildDocument(): Record<string, unknown> {
  const streams = unservedEventStreams(
    createLogger({ service: "client-generate", level: "silent" }),
    gatewayConfigSchema.shape.EVENT_STREAMS_PER_KEY.parse(undefined),
  );
  return buildOpenApiDocument(INFO, apiRoutes(placeholderBackends(), streams));
}

export async function generateFiles(): Promise<GeneratedFiles> {
  const document = buildDocument();
  const nodes = await openapiTS(document as unknown as OpenAPI3, { silent: true });
  return {
    openapiJson: `${JSON.stringify(document, null, 2)}\n`,
    schemaTs: COMMENT_HEADER + astToString(nodes),
  };
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
