import { type AppError, invalidArgument } from "@platform/errors";
import { z } from "zod";

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
 * Parses one part of a request. The first problem becomes a 400 naming the parameter, with the
 * schema's own code when it has one (INVALID_ADDRESS, INVALID_CURSOR...), else INVALID_PARAMETER
 * (query and path) or INVALID_REQUEST (body).
 */
export function validateInput<S extends z.ZodType>(schema: S, input: unknown, location: InputLocation): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0] as unknown as CodedIssue;
  throw toValidationError(issue, location, codeOfUnknownDiscriminator(schema, issue, input));
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

function toValidationError(issue: CodedIssue, location: InputLocation, ownCode: string | undefined): AppError {
  const name = issue.path.map(String).join(".");
  const code = issue.params?.code ?? ownCode ?? (location === "body" ? "INVALID_REQUEST" : "INVALID_PARAMETER");
  const where = location === "body" ? "body field" : location === "path" ? "path parameter" : "query parameter";
  const missing = issue.code === "invalid_type" && /received undefined/.test(issue.message);
  const detail = name
    ? `${where} '${name}' ${missing ? "is required" : issue.message}`
    : `${location === "body" ? "request body" : where}: ${issue.message}`;
  return invalidArgument(code, detail, name ? { parameter: name } : {});
}
