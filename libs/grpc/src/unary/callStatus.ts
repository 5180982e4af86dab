import { constants, type IncomingHttpHeaders } from "node:http2";
import { Metadata, type StatusObject, status } from "@grpc/grpc-js";

// Headers of the protocol itself, never handed to callers as metadata. `grpc-status-details-bin`
// (a google.rpc.Status with the error's details) is not one of them: grpc-js hands it on, so do we.
const RESERVED = new Set([
  "grpc-status",
  "grpc-message",
  "content-type",
  "grpc-encoding",
  "grpc-accept-encoding",
  "te",
  "date",
]);

// A successful call's trailers carry nothing a caller reads: one shared outcome, no metadata parsed.
const OK: StatusObject = Object.freeze({ code: status.OK, details: "", metadata: new Metadata() });

/** The outcome a response's trailers (or a trailers-only response's headers) carry. */
export function statusOfTrailers(trailers: IncomingHttpHeaders): StatusObject | undefined {
  const code = trailers["grpc-status"];
  if (code === undefined) return undefined;
  const parsed = Number(code);
  if (parsed === status.OK) return OK;
  return {
    code: Number.isInteger(parsed) && parsed > 0 && parsed <= 16 ? parsed : status.UNKNOWN,
    details: decodeMessage(trailers["grpc-message"]),
    metadata: metadataOf(trailers),
  };
}

function decodeMessage(raw: string | string[] | undefined): string {
  const text = Array.isArray(raw) ? raw.join(",") : (raw ?? "");
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function metadataOf(headers: IncomingHttpHeaders): Metadata {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(headers)) {
    if (key.startsWith(":") || RESERVED.has(key) || value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    // Only binary values are joined with commas (base64 has none); a text value is kept whole, commas
    // and all (an error's JSON extension members travel in one).
    if (key.endsWith("-bin"))
      for (const one of values.flatMap((joined) => joined.split(",")))
        metadata.add(key, Buffer.from(one.trim(), "base64"));
    else for (const one of values) metadata.add(key, one);
  }
  return metadata;
}

/** A response that is not gRPC at all (a proxy's error page): the code gRPC maps its HTTP status to. */
export function statusOfHttp(httpStatus: number): StatusObject {
  const code =
    httpStatus === 400
      ? status.INTERNAL
      : httpStatus === 401
        ? status.UNAUTHENTICATED
        : httpStatus === 403
          ? status.PERMISSION_DENIED
          : httpStatus === 404
            ? status.UNIMPLEMENTED
            : httpStatus === 429 || httpStatus === 502 || httpStatus === 503 || httpStatus === 504
              ? status.UNAVAILABLE
              : status.UNKNOWN;
  return { code, details: `Received HTTP status code ${httpStatus}`, metadata: new Metadata() };
}

/** A stream that ended without a status: what its reset code (or a lost connection) means. */
export function statusOfReset(rstCode: number | undefined, connectionLost: boolean): StatusObject {
  if (connectionLost) return { code: status.UNAVAILABLE, details: "Connection dropped", metadata: new Metadata() };
  switch (rstCode) {
    case constants.NGHTTP2_REFUSED_STREAM:
      return { code: status.UNAVAILABLE, details: "Stream refused by server", metadata: new Metadata() };
    case constants.NGHTTP2_CANCEL:
      return { code: status.CANCELLED, details: "Call cancelled", metadata: new Metadata() };
    case constants.NGHTTP2_ENHANCE_YOUR_CALM:
      return {
        code: status.RESOURCE_EXHAUSTED,
        details: "Bandwidth exhausted or memory limit exceeded",
        metadata: new Metadata(),
      };
    case constants.NGHTTP2_INADEQUATE_SECURITY:
      return { code: status.PERMISSION_DENIED, details: "Protocol not secure enough", metadata: new Metadata() };
    default:
      return {
        code: status.INTERNAL,
        details: `Received RST_STREAM with code ${rstCode ?? "unknown"}`,
        metadata: new Metadata(),
      };
  }
}

export function failure(code: status, details: string): StatusObject {
  return { code, details, metadata: new Metadata() };
}
