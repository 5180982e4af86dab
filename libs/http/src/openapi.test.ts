import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineRoute, type RouteDocs } from "./defineRoute.js";
import { buildOpenApiDocument } from "./openapi.js";

const INFO = { title: "t", version: "1", description: "d", serverUrl: "https://api.example" };

const route = (path: string, docs: Partial<RouteDocs> = {}) =>
  defineRoute({
    method: "get",
    path,
    operationId: path.slice(1),
    scope: "data:read",
    query: z.object({ limit: z.coerce.number().int().optional() }),
    docs: {
      summary: "s",
      tags: ["t"],
      success: { status: 200, description: "ok", contentType: "application/hal+json", example: { a: 1 } },
      ...docs,
    },
    async handle() {
      return { status: 200, body: {} };
    },
  });

type Operation = {
  parameters: Array<{ name: string; in: string; required: boolean; schema: unknown }>;
  responses: Record<string, { description: string; headers?: Record<string, { required: boolean }> }>;
};

const operationOf = (document: Record<string, unknown>, path: string) =>
  (document.paths as Record<string, { get: Operation }>)[path]!.get;

describe("OpenAPI document: conditional reads", () => {
  const document = buildOpenApiDocument(INFO, [
    route("/plain"),
    route("/conditional", {
      conditional: { cacheControl: "until the next block", notModified: "still current; costs a fifth" },
    }),
  ]);

  it("documents If-None-Match, ETag and Cache-Control on the answer, and the 304, for a conditional read", () => {
    const operation = operationOf(document, "/conditional");
    expect(operation.parameters.map((parameter) => [parameter.name, parameter.in, parameter.required])).toEqual([
      ["limit", "query", false],
      ["If-None-Match", "header", false],
    ]);
    // A bare string: any list of tags is valid, so no value a fuzzer draws is one the server refuses.
    expect(operation.parameters[1]!.schema).toEqual({ type: "string" });
    const ok = operation.responses["200"]!;
    expect(Object.keys(ok.headers ?? {})).toEqual(["ETag", "Cache-Control"]);
    expect(ok.headers!["Cache-Control"]).toMatchObject({ description: "until the next block", required: true });
    const notModified = operation.responses["304"]!;
    expect(notModified.description).toBe("Not Modified: still current; costs a fifth");
    expect(notModified.headers).toEqual(ok.headers);
    // No body: a 304 has no content.
    expect(notModified).not.toHaveProperty("content");
    expect(Object.keys(operation.responses).slice(0, 3)).toEqual(["200", "304", "401"]);
  });

  it("adds nothing to an operation that is not a conditional read", () => {
    const operation = operationOf(document, "/plain");
    expect(operation.parameters.map((parameter) => parameter.name)).toEqual(["limit"]);
    expect(operation.responses["200"]).not.toHaveProperty("headers");
    expect(operation.responses).not.toHaveProperty("304");
  });
});
