import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { rewriteRefs, templatePattern } from "./conformanceRefs.js";

/**
 * Holds answers against an OpenAPI document (what `/openapi.json` says): the status must be one the
 * operation documents, the content type its media type, the body its schema (which, as the
 * gateway emits them, allows no member it does not name), each required header present, each
 * documented header well-formed, and no other header than those and the transport's own. For
 * tests only (the e2e suite records every answer it receives; the gateway's tests check each
 * route's example): nothing on the request path uses it.
 */

export interface RecordedAnswer {
  method: string;
  /** The request's path, without query. */
  path: string;
  status: number;
  /** Lower-case names. */
  headers: Record<string, string | undefined>;
  /** The parsed JSON body; undefined when there is none (304, HEAD) or it is not JSON. */
  body?: unknown;
}

export interface AnswerCheck {
  /** `get /data/v1/accounts/{address}/balance/latest`, or undefined when no operation matches. */
  operation: string | undefined;
  violations: string[];
}

/**
 * Headers of HTTP itself (RFC 9110, 9112) and of CORS, which a browser's Origin brings on every
 * path alike (API.md "Browsers"); every other header an answer carries must be documented.
 */
const TRANSPORT_HEADERS = new Set([
  "content-type",
  "content-length",
  "date",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "vary",
  "access-control-allow-origin",
  "access-control-expose-headers",
]);

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

interface HeaderDoc {
  required?: boolean;
  schema?: Record<string, unknown>;
}
interface ResponseDoc {
  headers?: Record<string, HeaderDoc | { $ref: string }>;
  content?: Record<string, { schema?: Record<string, unknown> }>;
}
interface Operation {
  responses: Record<string, ResponseDoc>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; headers?: Record<string, HeaderDoc> };
}

export function createConformance(document: Record<string, unknown>): (answer: RecordedAnswer) => AnswerCheck {
  const doc = document as unknown as Document;
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: "components", $defs: rewriteRefs(doc.components.schemas) as Record<string, unknown> });
  const compiled = new Map<unknown, ValidateFunction>();
  const validatorOf = (schema: Record<string, unknown>) => {
    let validate = compiled.get(schema);
    if (validate === undefined) {
      validate = ajv.compile(rewriteRefs(schema) as Record<string, unknown>);
      compiled.set(schema, validate);
    }
    return validate;
  };
  // Literal segments first: `/intents/v1/intents/pending` before `/intents/v1/intents/{orderId}`.
  const templates = Object.keys(doc.paths)
    .map((template) => ({ template, pattern: templatePattern(template), literal: !template.includes("{") }))
    .sort((left, right) => Number(right.literal) - Number(left.literal));
  const headerDoc = (header: HeaderDoc | { $ref: string }): HeaderDoc =>
    "$ref" in header ? doc.components.headers![header.$ref.slice("#/components/headers/".length)]! : header;

  return (answer) => {
    const method = answer.method.toLowerCase() === "head" ? "get" : answer.method.toLowerCase();
    const match = templates.find((entry) => entry.pattern.test(answer.path) && doc.paths[entry.template]![method]);
    if (match === undefined) {
      const path = templates.find((entry) => entry.pattern.test(answer.path));
      // A path the API does not have: HTTP's 404, which no document lists.
      if (path === undefined)
        return {
          operation: undefined,
          violations: answer.status === 404 ? [] : [`no operation ${method} ${answer.path}`],
        };
      return {
        operation: undefined,
        violations: methodNotAllowedViolations(
          answer,
          Object.keys(doc.paths[path.template]!).filter((name) => HTTP_METHODS.has(name)),
        ),
      };
    }
    const operationName = `${method} ${match.template}`;
    const response = doc.paths[match.template]![method]!.responses[String(answer.status)];
    if (response === undefined)
      return { operation: operationName, violations: [`status ${answer.status} is not documented`] };
    const violations: string[] = [];
    const documented = new Map(
      Object.entries(response.headers ?? {}).map(([name, header]) => [name.toLowerCase(), headerDoc(header)]),
    );
    for (const [name, header] of documented) {
      const value = answer.headers[name];
      if (value === undefined) {
        if (header.required) violations.push(`required header ${name} is missing`);
      } else if (header.schema && !validatorOf(header.schema)(value)) {
        violations.push(
          `header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(validatorOf(header.schema).errors)}`,
        );
      }
    }
    for (const name of Object.keys(answer.headers)) {
      if (!documented.has(name) && !TRANSPORT_HEADERS.has(name) && answer.headers[name] !== undefined)
        violations.push(`header ${name} is not documented`);
    }
    const mediaTypes = Object.keys(response.content ?? {});
    const contentType = answer.headers["content-type"]?.split(";")[0]?.trim();
    if (mediaTypes.length === 0) {
      if (contentType !== undefined) violations.push(`a body (${contentType}) where none is documented`);
      return { operation: operationName, violations };
    }
    if (contentType === undefined || !mediaTypes.includes(contentType)) {
      violations.push(`content type ${contentType} is not ${mediaTypes.join(" or ")}`);
      return { operation: operationName, violations };
    }
    const schema = response.content![contentType]!.schema;
    if (schema !== undefined && answer.body !== undefined && contentType !== "text/event-stream") {
      const validate = validatorOf(schema);
      if (!validate(answer.body))
        for (const error of validate.errors ?? [])
          violations.push(`body${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`);
    }
    return { operation: operationName, violations };
  };
}

/**
 * A documented path asked with a method it has no operation for: HTTP's own answer (RFC 9110,
 * 15.5.6), 405 with an Allow header naming the path's methods, whatever the document lists.
 */
function methodNotAllowedViolations(answer: RecordedAnswer, methods: string[]): string[] {
  if (answer.status !== 405)
    return [`status ${answer.status} for a method ${answer.path} has no operation for (405 expected)`];
  const allowed = new Set((answer.headers.allow ?? "").split(",").map((name) => name.trim().toLowerCase()));
  const missing = methods.filter((name) => !allowed.has(name));
  return missing.length === 0 ? [] : [`405 without ${missing.join(", ")} in its Allow header`];
}
