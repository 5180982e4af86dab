import { z } from "zod";
import type { AnyRoute, ConditionalReadDocs } from "./defineRoute.js";
import { eventStreamSchema } from "./eventStreamSchema.js";
import { parameterRules } from "./parameterRules.js";
import { problemSlug } from "./problem.js";
import { responseComponents } from "./responseSchemas.js";
import { useDocumentedForm } from "./wireSchemas.js";

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  serverUrl: string;
  /**
   * Codes the server answers outside any operation of the document (a refused CORS preflight):
   * listed among the Problem schema's codes and `x-problem-types` all the same.
   */
  otherProblemCodes?: readonly string[];
}

/** Common answers every protected route may give; documented once per route. */
const PROTECTED_ERRORS = [
  { status: 401, code: "UNAUTHENTICATED" },
  { status: 401, code: "INVALID_TOKEN" },
  { status: 403, code: "FORBIDDEN" },
  // A browser key's token from an Origin outside the key's list.
  { status: 403, code: "KEY_ORIGIN_NOT_ALLOWED" },
  { status: 429, code: "RATE_LIMITED" },
  { status: 503, code: "UNAVAILABLE" },
  // A read model (or auth's key registry) being rebuilt after Redis lost it: answers resume, never older.
  { status: 503, code: "REBUILDING" },
];

/**
 * Answers any route may give before its handler runs (node's HTTP parser, the body parser, the
 * check that every query parameter is one the operation lists).
 */
const EVERY_ROUTE_ERRORS = [
  { status: 400, code: "UNKNOWN_PARAMETER" },
  // The request's headers or whole request did not arrive within the server's timeouts.
  { status: 408, code: "REQUEST_TIMEOUT" },
  { status: 431, code: "REQUEST_HEADERS_TOO_LARGE" },
];
const BODY_ROUTE_ERRORS = [
  { status: 400, code: "INVALID_REQUEST" },
  { status: 413, code: "PAYLOAD_TOO_LARGE" },
];

/** `/a/:b/c` → `/a/{b}/c`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

/**
 * 400 codes that judge a well-formed value against what only the server knows (its state, its
 * configuration, the clock, a signature), so no schema can say in advance which values pass: a
 * cursor it did not issue for this query, a window over the interval's maximum, a chain or route
 * this deployment does not serve, a SIWE message for another domain, out of its time bounds, with
 * a nonce it did not issue or a signature that does not verify. Every other 400 is a refusal of
 * shape, and a request the document calls valid never gets one. Published as `x-value-refusals`.
 */
export const VALUE_REFUSALS = [
  "INVALID_CURSOR",
  "WINDOW_TOO_LARGE",
  "UNSUPPORTED_CHAIN",
  "UNSUPPORTED_ROUTE",
  "NONCE_INVALID_OR_USED",
  "SIWE_SIGNATURE_INVALID",
  "SIWE_DOMAIN_MISMATCH",
  "SIWE_URI_MISMATCH",
  "SIWE_CHAIN_UNSUPPORTED",
  "SIWE_EXPIRED",
  "SIWE_NOT_YET_VALID",
] as const;

function jsonSchema(schema: z.ZodType, io: "input" | "output" = "input"): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    override: useDocumentedForm,
  }) as Record<string, unknown>;
  return rest;
}

const queryNames = new WeakMap<z.ZodType, ReadonlySet<string>>();

/**
 * The query parameters a query schema lists, as the document names them: the complete list of an
 * operation's query parameters (libs/http validate.ts refuses any other as UNKNOWN_PARAMETER).
 */
export function queryParameterNames(schema: z.ZodType): ReadonlySet<string> {
  let names = queryNames.get(schema);
  if (names === undefined) {
    names = new Set(Object.keys((jsonSchema(schema) as { properties?: object }).properties ?? {}));
    queryNames.set(schema, names);
  }
  return names;
}

function parametersOf(route: AnyRoute): unknown[] {
  const parameters: unknown[] = [];
  for (const [location, schema] of [
    ["path", route.params],
    ["query", route.query],
  ] as const) {
    if (!schema) continue;
    const object = jsonSchema(schema) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      const { description, ...propertySchema } = property;
      parameters.push({
        name,
        in: location,
        required: location === "path" || (object.required ?? []).includes(name),
        ...(description === undefined ? {} : { description }),
        // Lists are comma-separated (libs/http listQuery), OpenAPI's form style without explode.
        ...(propertySchema.type === "array" ? { style: "form", explode: false } : {}),
        schema: propertySchema,
      });
    }
  }
  return parameters;
}

/**
 * What a conditional read adds to its operation (RFC 9110 §13.1.2, §8.8.3, RFC 9111 §5.2): the
 * optional If-None-Match header, ETag and Cache-Control on the success answer, and the 304 answer
 * that carries them without a body.
 */
function conditionalParts(docs: ConditionalReadDocs) {
  const headers = {
    ETag: { $ref: "#/components/headers/ETag" },
    "Cache-Control": { description: docs.cacheControl, required: true, schema: { type: "string" } },
  };
  return {
    parameter: {
      name: "If-None-Match",
      in: "header",
      required: false,
      description:
        "Entity tags of representations the caller holds (a list, weak comparison, or `*`): when one is still current the answer is 304 Not Modified without a body.",
      schema: { type: "string" },
    },
    successHeaders: headers,
    notModified: { description: `Not Modified: ${docs.notModified}`, headers },
  };
}

function uniqueErrors(errors: Array<{ status: number; code: string }>): Array<{ status: number; code: string }> {
  const seen = new Set<string>();
  return errors.filter(
    (error) => !seen.has(`${error.status} ${error.code}`) && seen.add(`${error.status} ${error.code}`),
  );
}

/**
 * The response headers the gateway writes, each once (`components.headers`), as required where it
 * is always sent. Where a header comes on some answers of a status only, the operation carries an
 * optional copy (`optional`).
 */
const HEADERS = {
  "X-Request-Id": {
    description:
      "The request's id: the caller's X-Request-Id when well-formed, else a fresh one. Quote it when reporting a problem.",
    required: true,
    schema: { type: "string", minLength: 1 },
  },
  "X-Content-Type-Options": {
    description: "Always `nosniff`: a browser never reads an answer as anything but its content type.",
    required: true,
    schema: { type: "string", enum: ["nosniff"] },
  },
  RateLimit: {
    description:
      'What is left of the caller\'s rate budget (IETF httpapi RateLimit fields): `"default";r=<units left>;t=<seconds until it refills>`.',
    required: true,
    schema: { type: "string", pattern: '^"default";r=\\d+;t=\\d+$' },
  },
  "RateLimit-Policy": {
    description: 'The caller\'s tier: `"default";q=<units per window>;w=<window seconds>`.',
    required: true,
    schema: { type: "string", pattern: '^"default";q=\\d+;w=\\d+$' },
  },
  "Retry-After": {
    description: "Seconds to wait before trying again.",
    required: true,
    schema: { type: "string", pattern: "^\\d+$" },
  },
  ETag: {
    description:
      "Strong entity tag of this representation (a hash of the JSON text sent): send it back in If-None-Match to get 304 while it stands.",
    required: true,
    schema: { type: "string" },
  },
  Allow: {
    description: "The methods the path takes (RFC 9110 §10.2.1).",
    required: true,
    schema: { type: "string" },
  },
  "WWW-Authenticate": {
    description: "The authentication scheme and, for a refused token or scope, why (RFC 6750 §3).",
    required: true,
    schema: { type: "string" },
  },
} as const;
type HeaderName = keyof typeof HEADERS;

const headerRef = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });
const optional = (name: HeaderName) => ({ ...HEADERS[name], required: false });

/** Headers every answer of an operation carries; `admitted` for an answer that passed a protected route's access guard. */
function commonHeaders(protectedRoute: boolean, admitted: boolean): Record<string, unknown> {
  return {
    "X-Request-Id": headerRef("X-Request-Id"),
    "X-Content-Type-Options": headerRef("X-Content-Type-Options"),
    ...(protectedRoute
      ? admitted
        ? { RateLimit: headerRef("RateLimit"), "RateLimit-Policy": headerRef("RateLimit-Policy") }
        : { RateLimit: optional("RateLimit"), "RateLimit-Policy": optional("RateLimit-Policy") }
      : {}),
  };
}

/**
 * The headers of a problem answer with this status. 408 and 431 are written by the server before
 * any request exists (no request id); a 401 or 403 from the access guard says why in
 * WWW-Authenticate; every 429 and 503 says when to come back.
 */
function problemHeaders(status: number, protectedRoute: boolean): Record<string, unknown> {
  if (status === 408 || status === 431) return { "X-Content-Type-Options": headerRef("X-Content-Type-Options") };
  return {
    ...commonHeaders(protectedRoute, false),
    ...(status === 401 ? { "WWW-Authenticate": headerRef("WWW-Authenticate") } : {}),
    ...(status === 403 && protectedRoute ? { "WWW-Authenticate": optional("WWW-Authenticate") } : {}),
    ...(status === 429 || status === 503 ? { "Retry-After": headerRef("Retry-After") } : {}),
    ...(status === 405 ? { Allow: headerRef("Allow") } : {}),
  };
}

/** The success answer's body schema: a `$ref` to its component when it is one, else inline. */
function successSchema(schema: z.ZodType): Record<string, unknown> {
  const named = responseComponents.get(schema);
  return named === undefined ? jsonSchema(schema, "output") : { $ref: `#/components/schemas/${named.id}` };
}

/** Every named answer schema, with `$ref`s between them (responseSchemas.ts). */
function componentSchemas(): Record<string, unknown> {
  const { schemas } = z.toJSONSchema(responseComponents, {
    io: "output",
    unrepresentable: "any",
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Record<string, unknown>> };
  const components: Record<string, unknown> = {};
  for (const id of Object.keys(schemas).sort()) {
    const { $schema: _schema, $id: _id, ...schema } = schemas[id]!;
    components[id] = schema;
  }
  return components;
}

/** Headers a route documents by name and meaning: always sent, text. */
const namedHeaders = (headers: Record<string, string> | undefined) =>
  Object.fromEntries(
    Object.entries(headers ?? {}).map(([name, description]) => [
      name,
      { description, required: true, schema: { type: "string" } },
    ]),
  );

function successResponse(route: AnyRoute, conditional: ReturnType<typeof conditionalParts> | undefined) {
  const success = route.docs.success;
  const routeHeaders = namedHeaders({ ...route.docs.everyAnswerHeaders, ...success.headers });
  const media: Record<string, unknown> = {
    ...(success.events !== undefined
      ? { schema: eventStreamSchema(success.events, successSchema) }
      : success.schema === undefined
        ? {}
        : { schema: successSchema(success.schema) }),
    ...(success.example === undefined ? {} : { example: success.example }),
  };
  return {
    description: success.description,
    headers: { ...commonHeaders(route.scope !== undefined, true), ...routeHeaders, ...conditional?.successHeaders },
    content: { [success.contentType]: media },
  };
}

/** The OpenAPI 3.1 document of the mounted routes; JSON Schema comes straight from the zod schemas. */
export function buildOpenApiDocument(info: OpenApiInfo, routes: AnyRoute[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const problemCodes = new Set<string>(info.otherProblemCodes ?? []);
  for (const route of routes) {
    const errors = uniqueErrors([
      ...(route.docs.errors ?? []),
      ...(route.scope ? PROTECTED_ERRORS : []),
      ...(route.body ? BODY_ROUTE_ERRORS : []),
      ...EVERY_ROUTE_ERRORS,
    ]);
    const conditional = route.docs.conditional === undefined ? undefined : conditionalParts(route.docs.conditional);
    const responses: Record<string, unknown> = {
      [String(route.docs.success.status)]: successResponse(route, conditional),
      ...(conditional === undefined
        ? {}
        : {
            "304": {
              ...conditional.notModified,
              headers: { ...commonHeaders(route.scope !== undefined, true), ...conditional.notModified.headers },
            },
          }),
    };
    const byStatus = new Map<number, string[]>();
    for (const error of errors) {
      problemCodes.add(error.code);
      byStatus.set(error.status, [...(byStatus.get(error.status) ?? []), error.code]);
    }
    for (const [status, codes] of byStatus) {
      responses[String(status)] = {
        description: `Problem: ${codes.join(", ")}`,
        headers: {
          ...problemHeaders(status, route.scope !== undefined),
          ...(status === 408 || status === 431 ? {} : namedHeaders(route.docs.everyAnswerHeaders)),
        },
        content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
      };
    }
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method] = {
      operationId: route.operationId,
      summary: route.docs.summary,
      ...(route.docs.description === undefined ? {} : { description: route.docs.description }),
      tags: route.docs.tags,
      ...(route.scope ? { security: [{ bearerAuth: [route.scope] }] } : { security: [] }),
      // Units of the caller's rate budget one call spends (RateLimit-Policy's quota is in these units).
      ...(route.scope ? { "x-rate-limit-cost": route.cost ?? 1 } : {}),
      parameters: conditional === undefined ? parametersOf(route) : [...parametersOf(route), conditional.parameter],
      ...(route.query && parameterRules.get(route.query)
        ? { "x-parameter-rules": parameterRules.get(route.query)!.rules }
        : {}),
      ...(route.body
        ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(route.body) } } } }
        : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "Access token from POST /auth" } },
      headers: HEADERS,
      schemas: { ...componentSchemas(), Problem: problemSchema([...problemCodes].sort()) },
    },
    "x-problem-types": [...problemCodes].sort().map((code) => ({ code, type: `/problems/${problemSlug(code)}` })),
    "x-value-refusals": VALUE_REFUSALS.filter((code) => problemCodes.has(code)),
  };
}

/**
 * RFC 9457 problem details. Extension members depend on the code and come from the services
 * (relayed over gRPC), so the object stays open; the ones the gateway itself adds are named.
 */
function problemSchema(codes: string[]): Record<string, unknown> {
  return {
    type: "object",
    description:
      "RFC 9457 problem details; `code` is stable, extension members depend on the code and are named in camelCase. A 400 refusing the request's inputs lists every mistake in `errors`.",
    required: ["type", "title", "status", "code"],
    properties: {
      type: {
        type: "string",
        format: "uri-reference",
        description: "The problem type: `/problems/<code>`, a page saying what it means and what to do",
      },
      title: { type: "string", description: "A short summary of the problem type, the same for every occurrence" },
      status: { type: "integer", description: "The HTTP status code of the answer" },
      detail: { type: "string", description: "What went wrong this time, for people" },
      instance: { type: "string", description: "The path of the request that got it" },
      code: { type: "string", enum: codes, description: "The stable, machine-readable code: branch on it" },
      parameter: {
        type: "string",
        description: "The input a 400 refuses (a query or path parameter, a body member), the first of `errors`",
      },
      errors: {
        type: "array",
        description:
          "Every mistake of a refused request (a 400 of its path, query or body), in one answer: `pointer` is a JSON Pointer (RFC 6901) into the JSON body for a body member (`/order/fillDeadline`), or `/query/<name>` and `/path/<name>` for a query or path parameter; `detail` says what is wrong with it",
        items: {
          type: "object",
          required: ["pointer", "detail"],
          properties: {
            pointer: {
              type: "string",
              description: "Where: a JSON Pointer into the body, or /query/<name> or /path/<name>",
            },
            detail: { type: "string", description: "What is wrong with it" },
          },
        },
      },
      retryAfterSeconds: { type: "integer", description: "As Retry-After, for a 429 or 503" },
      requiredScope: { type: "string", description: "The scope a 403 FORBIDDEN found missing" },
      violatedPolicies: { type: "array", items: { type: "string" }, description: "The budgets a 429 spent" },
    },
    additionalProperties: true,
  };
}
