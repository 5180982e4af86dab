import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isIP, isIPv4 } from "node:net";
import type { RequestContext } from "@platform/http";
import type { Span } from "@platform/telemetry";
import { requestSpanOf, traceparentOf } from "./requestSpan.js";
import type { TrustedProxies } from "./trustedProxies.js";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A request's context as the gateway keeps it: what routes see, and when it started. */
export interface GatewayContext extends RequestContext {
  readonly startedAt: bigint;
  /** The request's server span while tracing; the access log ends it, named by the route template. */
  readonly span?: Span | undefined;
}

/**
 * Every request gets an id: the caller's `X-Request-Id` when it is well formed, else a new one.
 * It is echoed in the response and carried to the services in gRPC metadata and logs.
 */
export function startRequest(
  request: IncomingMessage,
  response: ServerResponse,
  trustedProxies: TrustedProxies,
): GatewayContext {
  const incoming = request.headers["x-request-id"];
  const requestId = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  response.setHeader("x-request-id", requestId);
  const span = requestSpanOf(request);
  return {
    requestId,
    keyId: undefined,
    startedAt: process.hrtime.bigint(),
    span,
    traceparent: traceparentOf(span),
    header: (name) => headerOf(request, name),
    clientAddress: () => clientAddressOf(request, trustedProxies),
    onClose: (listener) => onClosed(response, listener),
  };
}

/** `listener` once the response's connection has closed; at once (next tick) when it already has. */
function onClosed(response: ServerResponse, listener: () => void): () => void {
  if (response.closed) {
    process.nextTick(listener);
    return () => undefined;
  }
  response.once("close", listener);
  return () => response.off("close", listener);
}

function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/**
 * The client's address, as auth's per-address slow-down and lockout count it. The connection's
 * peer, unless the peer is a trusted proxy (TRUST_PROXY_CIDRS): then X-Forwarded-For is read from
 * the right, each entry being the address the hop to its right saw, past every trusted proxy, and
 * the first address outside them is the client. Only the peer decides whether the header is read at
 * all, so a client connecting directly cannot name itself; entries left of the first untrusted one
 * are that client's own claims and never read. An entry that is not an IP address (a hop that did
 * not append) ends the walk at the last trusted address. When every entry is a trusted proxy the
 * leftmost is taken. Addresses are given plain: no brackets or port, an IPv4-mapped IPv6 address
 * as IPv4.
 */
export function clientAddressOf(request: IncomingMessage, trustedProxies: TrustedProxies): string {
  const peer = plainAddress(request.socket.remoteAddress ?? "") ?? request.socket.remoteAddress ?? "";
  if (!trustedProxies.has(peer)) return peer;
  const forwarded = headerOf(request, "x-forwarded-for");
  const chain = forwarded ? forwarded.split(",") : [];
  let address = peer;
  for (let index = chain.length - 1; index >= 0; index -= 1) {
    const entry = plainAddress(chain[index]!.trim());
    if (entry === undefined) return address;
    address = entry;
    if (!trustedProxies.has(entry)) return entry;
  }
  return address;
}

/** An IP address without brackets, port or IPv4 mapping; undefined when the text is none. */
export function plainAddress(text: string): string | undefined {
  let address = text;
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else if (/^[\d.]+:\d{1,5}$/.test(address)) address = address.slice(0, address.lastIndexOf(":"));
  const mapped = /^::ffff:([\d.]+)$/i.exec(address)?.[1];
  if (mapped !== undefined && isIPv4(mapped)) return mapped;
  return isIP(address.split("%")[0]!) === 0 ? undefined : address;
}
