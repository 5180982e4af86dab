import { sampleObject, sampleValue } from "./sampleValues.js";

/**
 * `x-codeSamples` (the reference page's own samples, which Scalar and Redoc show beside curl and
 * the rest): every operation gets one in TypeScript, a whole program calling it with this API's
 * client, `@chain-intents/client`: `get`, `post`, `paginate` for a list route, `events` for an
 * event stream, and for `POST /auth` the client's own token exchange. The client's tests
 * type-check every sample against the client (libs/client/src/codeSamples.test.ts).
 */

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  schema: Record<string, unknown>;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
  "x-codeSamples"?: unknown;
}

/** The opening every sample shares: the client, with an API key from the environment. */
export function clientSetup(baseUrl: string): string {
  return [
    'import { createClient } from "@chain-intents/client";',
    "",
    "const client = createClient({",
    `  baseUrl: ${JSON.stringify(baseUrl)},`,
    "  apiKey: { id: process.env.API_KEY_ID!, secret: process.env.API_KEY_SECRET! },",
    "});",
    "",
    "",
  ].join("\n");
}

/** Source text of a value, as a person writes it (JSON with bare member names). */
function literal(value: unknown, indent = ""): string {
  if (Array.isArray(value)) return `[${value.map((item) => literal(item, indent)).join(", ")}]`;
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  const inner = `${indent}  `;
  const members = entries.map(
    ([key, member]) =>
      `${inner}${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}: ${literal(member, inner)},`,
  );
  return `{\n${members.join("\n")}\n${indent}}`;
}

/** `{ params: { path, query } }` with the required parameters, or undefined when there are none. */
function callInit(operation: Operation, body: unknown): Record<string, unknown> | undefined {
  const params: Record<string, Record<string, unknown>> = {};
  for (const parameter of operation.parameters ?? []) {
    if (!parameter.required || (parameter.in !== "path" && parameter.in !== "query")) continue;
    params[parameter.in] ??= {};
    params[parameter.in]![parameter.name] = sampleValue(parameter.name, parameter.schema);
  }
  const init = {
    ...(Object.keys(params).length === 0 ? {} : { params }),
    ...(body === undefined ? {} : { body }),
  };
  return Object.keys(init).length === 0 ? undefined : init;
}

const isList = (operation: Operation) => (operation.parameters ?? []).some((parameter) => parameter.name === "cursor");

/** The lines that call the operation. */
function callOf(path: string, method: string, operation: Operation): string {
  if (path === "/auth")
    return "// The client exchanges the key at POST /auth on its first call, and renews the token itself.\nconst token = await client.accessToken();\nconsole.log(token.length);";
  if (path === "/data/v1/events")
    return 'for await (const event of client.events.data({ topics: ["heads", "pools", "prices"] })) {\n  if (event.type === "pool") console.log(event.data.netuid, event.data.price_tao);\n  else console.log(event.type, event.data);\n}';
  if (path === "/intents/v1/events")
    return `for await (const event of client.events.intents({ userAddress: ${JSON.stringify(sampleValue("userAddress", {}))} })) {\n  if (event.type === "status") console.log(event.data.orderId, event.data.status);\n  else console.log(event.type, event.data);\n}`;
  const bodySchema = operation.requestBody?.content["application/json"]?.schema;
  const init = callInit(operation, bodySchema === undefined ? undefined : sampleObject(bodySchema));
  const args = `${JSON.stringify(path)}${init === undefined ? "" : `, ${literal(init)}`}`;
  if (method === "get" && isList(operation))
    return `for await (const item of client.paginate(${args})) {\n  console.log(item);\n}`;
  return `const answer = await client.${method}(${args});\nconsole.log(answer);`;
}

/** The document with a TypeScript sample on every operation. */
export function withCodeSamples(document: Record<string, unknown>, baseUrl: string): Record<string, unknown> {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  for (const [path, methods] of Object.entries(paths))
    for (const [method, operation] of Object.entries(methods))
      operation["x-codeSamples"] = [
        {
          lang: "TypeScript",
          label: "@chain-intents/client",
          source: `${clientSetup(baseUrl)}${callOf(path, method, operation)}\n`,
        },
      ];
  return document;
}
