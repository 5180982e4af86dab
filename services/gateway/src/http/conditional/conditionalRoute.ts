import type { AnyRoute, ConditionalReadDocs } from "@platform/http";
import type { Dependency } from "./changeClock.js";

/** What the gateway needs to know of a conditional read besides its route definition. */
export interface ConditionalRead {
  /** The read models (and accounts) its answer is read from, given the validated path parameters. */
  dependsOn(params: Record<string, unknown>): Dependency[];
}

const reads = new WeakMap<AnyRoute, ConditionalRead>();

/**
 * Makes a GET route a conditional read: its 200 answers get an ETag and Cache-Control, If-None-Match
 * is honoured with 304 (serveConditionalRead.ts), and its OpenAPI operation says so (`docs`).
 * Returns the route to mount; the original stays as it was.
 */
export function conditionalRead<R extends AnyRoute>(route: R, read: ConditionalRead, docs: ConditionalReadDocs): R {
  if (route.method !== "get") throw new Error(`${route.operationId}: only a GET route can be a conditional read`);
  const conditional = { ...route, docs: { ...route.docs, conditional: docs } };
  reads.set(conditional, read);
  return conditional;
}

export const conditionalReadOf = (route: AnyRoute): ConditionalRead | undefined => reads.get(route);

/**
 * The key an answer is kept under: the route, and its validated path parameters and query (not the
 * API key: answers do not depend on it). Validation gives one form to every spelling of the same
 * request (`netuid=1,2` and `netuid=1&netuid=2`, parameters in any order, unknown ones dropped),
 * in the order of the route's schemas, which is also what the answer's links are built from.
 */
export function answerKey(route: AnyRoute, params: unknown, query: unknown): string {
  return `${route.operationId}\n${JSON.stringify(params, plain)}\n${JSON.stringify(query, plain)}`;
}

const plain = (_key: string, value: unknown) => (typeof value === "bigint" ? `${value}n` : value);
