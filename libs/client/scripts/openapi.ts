import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from "openapi-typescript";
import { eventTypesTs } from "./eventTypes.js";
import { typingView } from "./typingView.js";

/**
 * The client is generated from the OpenAPI document the gateway emits: its build writes
 * dist/openapi.json, exported as `@platform/gateway/openapi.json`. Nothing of the gateway's
 * sources is imported here.
 */

const require = createRequire(import.meta.url);

/** The client's generated files, as text. */
export interface GeneratedFiles {
  /** `libs/client/openapi.json`: the document, as the gateway emits it, pretty-printed. */
  openapiJson: string;
  /** `libs/client/src/generated/schema.ts`: its types, by openapi-typescript. */
  schemaTs: string;
  /** `libs/client/src/generated/events.ts`: each event stream's events, per name the type of its data. */
  eventsTs: string;
}

/** The document the gateway's build emitted (`pnpm build` writes it). */
export function builtGatewayDocument(): string {
  try {
    return readFileSync(require.resolve("@platform/gateway/openapi.json"), "utf8");
  } catch (error) {
    throw new Error("no services/gateway/dist/openapi.json: run `pnpm build` at the repository root first", {
      cause: error,
    });
  }
}

/**
 * The document the gateway's sources emit now: its emitter run as a program (from source, so no
 * build is needed), the way the build runs it.
 */
export function emittedGatewayDocument(): string {
  const gatewayDir = dirname(require.resolve("@platform/gateway/package.json"));
  return execFileSync(
    process.execPath,
    [require.resolve("tsx/cli"), "--conditions=@platform/source", join(gatewayDir, "src/openapi/emit.ts")],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
}

/** The client's files for a document's text. */
export async function generateFiles(openapiJson: string): Promise<GeneratedFiles> {
  const document: unknown = JSON.parse(openapiJson);
  const nodes = await openapiTS(typingView(document) as OpenAPI3, { silent: true });
  return { openapiJson, schemaTs: COMMENT_HEADER + astToString(nodes), eventsTs: eventTypesTs(document) };
}
