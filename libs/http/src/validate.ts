import { invalidArgument, type AppError } from "@platform/errors";
import type { z } from "zod";

/**
 * Codes a schema may attach to its own refinements (`params: { code: "INVALID_ADDRESS" }`), so a bad
 * address reads INVALID_ADDRESS rather than the generic INVALID_PARAMETER.
 */
interface CodedIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  params?: { code?: string };
}

export type InputLocation = "query" | "path" | "body";

/**
 * Parses one part of a request. The first problem becomes a 400 naming the parameter, with the
 * schema's own code when it has one (INVALID_ADDRESS, INVALID_CURSOR...), else INVALID_PARAMETER
 * (query and path) or INVALID_REQUEST (body).
 */
export function validateInput<S extends z.ZodType>(schema: S, input: unknown, location: InputLocation): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw toValidationError(result.error.issues[0] as unknown as CodedIssue, location);
}

function toValidationError(issue: CodedIssue, location: InputLocation): AppError {
  const name = issue.path.map(String).join(".");
  const code = issue.params?.code ?? (location === "body" ? "INVALID_REQUEST" : "INVALID_PARAMETER");
  const where = location === "body" ? "body field" : location === "path" ? "path parameter" : "query parameter";
  const missing = issue.code === "invalid_type" && /received undefined/.test(issue.message);
  const detail = name
    ? `${where} '${name}' ${missing ? "is required" : issue.message}`
    : `${location === "body" ? "request body" : where}: ${issue.message}`;
  return invalidArgument(code, detail, name ? { parameter: name } : {});
}
