import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestContext } from "@platform/http";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A request's context as the gateway keeps it: what routes see, and when it started. */
export interface GatewayContext extends RequestContext {
  readonly startedAt: bigint;
}

/**
 * Every request gets an id: the caller's `X-Request-Id` when it is well formed, else a new one.
 * It is echoed in the response and carried to the services in gRPC metadata and logs.
 */
export function startRequest(request: IncomingMessage, response: ServerResponse, trustedProxyHops: number): GatewayContext {
  const incoming = request.headers["x-request-id"];
  const requestId = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  response.setHeader("x-request-id", requestId);
  return {
    requestId,
    keyId: undefined,
    startedAt: process.hrtime.bigint(),
    header: (name) => headerOf(request, name),
    clientAddress: () => clientAddressOf(request, trustedProxyHops),
  };
}

function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/**
 * The client's address: the connection's peer, or, behind `trustedProxyHops` proxies, the address
 * the outermost trusted proxy saw (X-Forwarded-For read from the right), as express's numeric
 * `trust proxy` setting reads it.
 */
export function clientAddressOf(request: IncomingMessage, trustedProxyHops: number): string {
  const peer = request.socket.remoteAddress ?? "";
  if (trustedProxyHops <= 0) return peer;
  const forwarded = headerOf(request, "x-forwarded-for");
  const chain = [peer, ...(forwarded ? forwarded.split(",").map((address) => address.trim()).reverse() : [])];
  return chain[Math.min(trustedProxyHops, chain.length - 1)] ?? peer;
}
