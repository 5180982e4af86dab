import type { z } from "zod";

export type HttpMethod = "get" | "post";

/** What a route's handler knows of its request besides the validated inputs. */
export interface RequestContext {
  /** The caller's well-formed X-Request-Id, else a fresh one; echoed and carried to services. */
  readonly requestId: string;
  /** The API key the access guard admitted (protected routes only). */
  keyId: string | undefined;
  /** A request header, by lower-case name. */
  header(name: string): string | undefined;
  /** The client's address, after the trusted proxy hops. */
  clientAddress(): string;
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
}

export interface RouteDocs {
  summary: string;
  description?: string;
  tags: string[];
  /** The success status and an example body, shown in the OpenAPI document. */
  success: { status: number; description: string; contentType: string; example?: unknown };
  /** Error codes the route can answer besides the protected-route ones, with their statuses. */
  errors?: Array<{ status: number; code: string }>;
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
