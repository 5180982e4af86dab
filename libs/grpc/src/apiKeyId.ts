import type { Metadata } from "@grpc/grpc-js";

/** gRPC metadata the gateway sets with the API key id of the request it calls for (never the token). */
export const API_KEY_ID_METADATA = "x-api-key-id";

/**
 * The API key id a call was made for, "" when none came (a direct gRPC caller): what per-key limits
 * count and audit records name. Capped at 200 characters, as the gateway's key ids are far shorter.
 */
export function apiKeyIdOf(call: { metadata: Metadata }): string {
  const [value] = call.metadata.get(API_KEY_ID_METADATA);
  return typeof value === "string" ? value.slice(0, 200) : "";
}
