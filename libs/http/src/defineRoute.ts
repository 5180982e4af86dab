import type { ServerResponse } from "node:http";
import type { z } from "zod";

export type HttpMethod = "get" | "post";

/** What a route's handler knows of its request besides the validated inputs. */
export interface RequestContext {
  /** The caller's well-formed X-Request-Id, else a fresh one; echoed and carried to services. */
  readonly requestId: string;
  /** The API key the access guard admitted (protected routes only). */
  keyId: string | undefined;
  /** What the admitted token says of its key (protected routes only): long-lived answers check it again. */
  credential?: { secretVersion: number; tier: string; expiresAt: number };
  /**
   * The W3C traceparent of the request's own span, when tracing sampled it: the calls made on its
   * behalf carry it (the gateway keeps no trace context across awaits).
   */
  readonly traceparent?: string | undefined;
  /** A request header, by lower-case name. */
  header(name: string): string | undefined;
  /** The client's address, after the trusted proxy hops. */
  clientAddress(): string;
  /**
   * Calls `listener` once when the request's connection closes, whether answered or left by the
   * client (at once when it has closed already); returns the way to stop listening. A handler that
   * holds resources before it answers (an event stream's slot and backend watch) needs it: once
   * the client has gone, no answer will ever be written to tell it.
   */
  onClose?(listener: () => void): () => void;
}

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  context: RequestContext;
}

export interface RouteResult {
  status: number;
  body: unknown;
  contentType?: string;
  headers?: Record<string, string>;
  /**
   * The answer can never change (a read pinned to a finalized block): a conditional read sends it
   * with a long `immutable` Cache-Control and keeps it past the read models' changes.
   */
  immutable?: boolean;
  /**
   * A streamed answer (server-sent events): called instead of writing `body`, with the response
   * whose status and headers it writes itself; the request ends when the promise settles.
   */
  stream?: (response: ServerResponse) => Promise<void>;
}

export interface RouteDocs {
  summary: string;
  description?: string;
  tags: string[];
  /**
   * The success answer: its status, the schema of its body (the render function's output type is
   * held against it where the route is written), an example, and the headers it carries besides
   * the ones every answer or every protected answer has (openapi.ts), by name with their meaning.
   */
  success: {
    status: number;
    description: string;
    contentType: string;
    example?: unknown;
    schema?: z.ZodType;
    /**
     * An event stream's events (`text/event-stream`): the schema of each event's `data` (JSON), by
     * event name, as the route's emitter is typed against them (openapi.ts documents each event).
     */
    events?: Record<string, z.ZodType>;
    headers?: Record<string, string>;
  };
  /** Headers on every answer of the route, problems included (by name, with their meaning). */
  everyAnswerHeaders?: Record<string, string>;
  /** Error codes the route can answer besides the protected-route ones, with their statuses. */
  errors?: Array<{ status: number; code: string }>;
  /**
   * A conditional read (RFC 9110 §13.1.2): the success answer carries a strong `ETag` and
   * `Cache-Control`, and the operation honours `If-None-Match` with `304 Not Modified`. The texts say,
   * for this route, how long an answer stays fresh and what a 304 costs; the OpenAPI document adds
   * the request header, the response headers and the 304 answer (openapi.ts).
   */
  conditional?: ConditionalReadDocs;
}

export interface ConditionalReadDocs {
  /** What the `Cache-Control` of an answer says, and why. */
  cacheControl: string;
  /** When a 304 comes, and what it costs the caller. */
  notModified: string;
}

/**
 * One public route, described once: its inputs as schemas, its documentation and its handler.
 * The gateway mounts it and the OpenAPI document is generated from the same object, so the
 * document cannot drift from what the server does.
 */
export interface RouteDefinition<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  /** Express-style path, e.g. `/data/v1/subnets/:netuid/validators/latest`. */
  path: string;
  operationId: string;
  /** The scope a bearer token needs; absent for public routes. */
  scope?: string;
  /** Units of the caller's rate budget one call spends (1 when absent); heavier reads cost more. */
  cost?: number;
  params?: P;
  query?: Q;
  body?: B;
  docs: RouteDocs;
  handle(input: RouteInput<z.infer<P>, z.infer<Q>, z.infer<B>>): Promise<RouteResult>;
}

/** Keeps the inferred input types when a route is written as an object literal. */
export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  route: RouteDefinition<P, Q, B>,
): RouteDefinition<P, Q, B> {
  return route;
}

// The mounted list is heterogeneous; each route was checked by defineRoute when it was written.
// biome-ignore lint/suspicious/noExplicitAny: a list of routes of different request and answer types
export type AnyRoute = RouteDefinition<any, any, any>;
