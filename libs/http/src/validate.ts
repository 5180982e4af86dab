import { type AppError, invalidArgument } from "@platform/errors";
import { z } from "zod";
import { queryParameterNames } from "./openapi.js";

/**
 * Codes a schema may attach to its own refinements (`params: { code: "INVALID_ADDRESS" }`), so a bad
 * address reads INVALID_ADDRESS rather than the generic INVALID_PARAMETER.
 */
interface CodedIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  params?: { code?: string };
  /** Set on a discriminated union's "no option has this value" issue. */
  discriminator?: string;
}

/**
 * The code a discriminated union answers when its discriminator has none of its values (POST
 * /auth's `type`: UNSUPPORTED_GRANT_TYPE); zod cannot attach one to that issue itself.
 */
export const unknownDiscriminatorCodes = z.registry<{ code: string }>();

export type InputLocation = "query" | "path" | "body";

/**
 * One mistake of a request, as the `errors` member of a 400 lists it. `pointer` is a JSON Pointer
 * (RFC 6901): into the JSON body for a body member (`/order/fillDeadline`; `""` is the body as a
 * whole), `/query/<name>` for a query parameter and `/path/<name>` for a path parameter.
 */
export interface InputError {
  pointer: string;
  detail: string;
}

/** A mistake found, with the code it would answer alone and the name `parameter` gives it. */
interface Mistake extends InputError {
  code: string;
  name: string;
}

/** The code of a query parameter the operation does not list. */
export const UNKNOWN_PARAMETER = "UNKNOWN_PARAMETER";

/**
 * Parses one part of a request. A refusal is a 400 naming the first mistake (`parameter`, `detail`),
 * with the schema's own code when it has one (INVALID_ADDRESS, INVALID_CURSOR...), else
 * INVALID_PARAMETER (query and path) or INVALID_REQUEST (body), and every mistake in `errors`.
 */
export function validateInput<S extends z.ZodType>(schema: S, input: unknown, location: InputLocation): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(mistakesOf(schema, input, location, result.error));
}

/** The schemas of a route's inputs. */
export interface InputSchemas {
  params?: z.ZodType | undefined;
  query?: z.ZodType | undefined;
  body?: z.ZodType | undefined;
}

/**
 * Parses a request's path parameters, query and body together, and refuses them with one 400 that
 * lists every mistake (`errors`): query parameters the route does not list (UNKNOWN_PARAMETER, with
 * no exemption: the route's parameters in the OpenAPI document are the complete list), then bad
 * values, path first. The problem's code, `detail` and `parameter` are the first mistake's.
 */
export function validateRequest(
  schemas: InputSchemas,
  raw: { params: unknown; query: unknown; body: unknown },
): { params: unknown; query: unknown; body: unknown } {
  const mistakes: Mistake[] = [];
  const part = (schema: z.ZodType | undefined, input: unknown, location: InputLocation, absent: unknown) => {
    if (schema === undefined) return absent;
    const result = schema.safeParse(input);
    if (result.success) return result.data;
    mistakes.push(...mistakesOf(schema, input, location, result.error));
    return undefined;
  };
  const params = part(schemas.params, raw.params, "path", {});
  mistakes.push(...unknownParameters(schemas.query, raw.query));
  const query = part(schemas.query, raw.query ?? {}, "query", {});
  const body = part(schemas.body, raw.body ?? {}, "body", undefined);
  if (mistakes.length > 0) throw validationError(mistakes);
  return { params, query, body };
}

/** The query parameters given that the schema does not list, each a mistake. */
function unknownParameters(schema: z.ZodType | undefined, query: unknown): Mistake[] {
  if (typeof query !== "object" || query === null) return [];
  const known = schema === undefined ? new Set<string>() : queryParameterNames(schema);
  const unknown = Object.keys(query).filter((name) => !known.has(name));
  const takes = known.size === 0 ? "takes no query parameters" : `takes ${[...known].join(", ")}`;
  return unknown.map((name) => ({
    code: UNKNOWN_PARAMETER,
    name,
    pointer: `/query/${escapePointer(name)}`,
    detail: `unknown query parameter '${name}': this operation ${takes}`,
  }));
}

function validationError(mistakes: Mistake[]): AppError {
  const first = mistakes[0]!;
  const more = mistakes.length - 1;
  const detail = more === 0 ? first.detail : `${first.detail} (and ${more} more: see errors)`;
  return invalidArgument(first.code, detail, {
    ...(first.name ? { parameter: first.name } : {}),
    errors: mistakes.map(({ pointer, detail }) => ({ pointer, detail })),
  });
}

function mistakesOf(schema: z.ZodType, input: unknown, location: InputLocation, error: z.ZodError): Mistake[] {
  return (error.issues as unknown as CodedIssue[]).map((issue) =>
    mistakeOf(issue, location, codeOfUnknownDiscriminator(schema, issue, input)),
  );
}

function codeOfUnknownDiscriminator(schema: z.ZodType, issue: CodedIssue, input: unknown): string | undefined {
  if (issue.code !== "invalid_union" || issue.discriminator === undefined) return undefined;
  let node: z.ZodType | undefined = schema;
  let value: unknown = input;
  for (const key of issue.path.slice(0, -1)) {
    node = node instanceof z.ZodObject ? (node.shape as Record<string, z.ZodType>)[String(key)] : undefined;
    value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[String(key)] : undefined;
  }
  // A missing discriminator is a missing field (the generic code), not an unsupported value.
  const given =
    typeof value === "object" && value !== null ? (value as Record<string, unknown>)[issue.discriminator] : undefined;
  return given === undefined || node === undefined ? undefined : unknownDiscriminatorCodes.get(node)?.code;
}

function mistakeOf(issue: CodedIssue, location: InputLocation, ownCode: string | undefined): Mistake {
  const name = issue.path.map(String).join(".");
  const code = issue.params?.code ?? ownCode ?? (location === "body" ? "INVALID_REQUEST" : "INVALID_PARAMETER");
  const where = location === "body" ? "body field" : location === "path" ? "path parameter" : "query parameter";
  const missing = issue.code === "invalid_type" && /received undefined/.test(issue.message);
  const detail = name
    ? `${where} '${name}' ${missing ? "is required" : issue.message}`
    : `${location === "body" ? "request body" : where}: ${issue.message}`;
  return { code, name, pointer: inputPointer(location, issue.path), detail };
}

/** The `errors` pointer of an input: into the body, or `/query/<name>` and `/path/<name>`. */
export function inputPointer(location: InputLocation, path: readonly PropertyKey[]): string {
  const steps = path.map((key) => escapePointer(String(key)));
  return [...(location === "body" ? [] : [location]), ...steps].map((step) => `/${step}`).join("");
}

/** RFC 6901 §3: `~` is written `~0` and `/` is written `~1` in a reference token. */
function escapePointer(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}
