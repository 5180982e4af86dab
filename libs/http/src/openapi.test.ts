import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineRoute, type RouteDocs } from "./defineRoute.js";
import { buildOpenApiDocument } from "./openapi.js";
import { component, HalLinkSchema, PageSchema } from "./responseSchemas.js";

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
    expect(Object.keys(ok.headers ?? {})).toEqual([
      "X-Request-Id",
      "X-Content-Type-Options",
      "RateLimit",
      "RateLimit-Policy",
      "ETag",
      "Cache-Control",
    ]);
    expect(ok.headers!.ETag).toEqual({ $ref: "#/components/headers/ETag" });
    expect(ok.headers!["Cache-Control"]).toMatchObject({ description: "until the next block", required: true });
    const notModified = operation.responses["304"]!;
    expect(notModified.description).toBe("Not Modified: still current; costs a fifth");
    expect(notModified.headers).toEqual(ok.headers);
    // No body: a 304 has no content.
    expect(notModified).not.toHaveProperty("content");
    expect(Object.keys(operation.responses).slice(0, 3)).toEqual(["200", "304", "400"]);
  });

  it("adds nothing to an operation that is not a conditional read", () => {
    const operation = operationOf(document, "/plain");
    expect(operation.parameters.map((parameter) => parameter.name)).toEqual(["limit"]);
    expect(Object.keys(operation.responses["200"]!.headers ?? {})).not.toContain("ETag");
    expect(operation.responses).not.toHaveProperty("304");
  });
});

describe("OpenAPI document: answers", () => {
  const Thing = component(
    "Thing",
    z.object({ _links: z.object({ self: HalLinkSchema }), count: z.number().int(), page: PageSchema }),
  );
  const thingRoute = defineRoute({
    method: "get",
    path: "/things/:id",
    operationId: "getThing",
    scope: "data:read",
    cost: 3,
    docs: {
      summary: "s",
      tags: ["t"],
      success: {
        status: 200,
        description: "ok",
        contentType: "application/json",
        schema: Thing,
        headers: { "Cache-Control": "no-store" },
      },
    },
    async handle() {
      return { status: 200, body: {} };
    },
  });
  const document = buildOpenApiDocument(INFO, [thingRoute]) as {
    paths: Record<string, { get: Record<string, unknown> & { responses: Record<string, Record<string, unknown>> } }>;
    components: { schemas: Record<string, Record<string, unknown>>; headers: Record<string, unknown> };
  };
  const operation = document.paths["/things/{id}"]!.get;

  it("refers to the answer's named schema, which names the shared shapes by reference and allows nothing else", () => {
    expect(operation.responses["200"]!.content).toEqual({
      "application/json": { schema: { $ref: "#/components/schemas/Thing" } },
    });
    const thing = document.components.schemas.Thing!;
    expect(thing.additionalProperties).toBe(false);
    expect(thing.required).toEqual(["_links", "count", "page"]);
    expect(JSON.stringify(thing)).toContain('"$ref":"#/components/schemas/HalLink"');
    expect(document.components.schemas.Page).toMatchObject({ additionalProperties: false });
  });

  it("documents the headers of each answer: request id everywhere, rate limit, Retry-After on 429 and 503", () => {
    const headersOf = (status: string) =>
      operation.responses[status]!.headers as Record<string, Record<string, unknown>>;
    expect(Object.keys(headersOf("200"))).toEqual([
      "X-Request-Id",
      "X-Content-Type-Options",
      "RateLimit",
      "RateLimit-Policy",
      "Cache-Control",
    ]);
    expect(headersOf("429")["Retry-After"]).toEqual({ $ref: "#/components/headers/Retry-After" });
    expect(headersOf("503")["Retry-After"]).toEqual({ $ref: "#/components/headers/Retry-After" });
    // Refused before the guard counted anything: the rate-limit fields may be absent.
    expect(headersOf("401").RateLimit).toMatchObject({ required: false });
    expect(headersOf("401")["WWW-Authenticate"]).toEqual({ $ref: "#/components/headers/WWW-Authenticate" });
    // Written by the server before a request exists.
    expect(Object.keys(headersOf("431"))).toEqual(["X-Content-Type-Options"]);
    expect(Object.keys(document.components.headers)).toContain("RateLimit-Policy");
  });

  it("publishes the route's cost as x-rate-limit-cost", () => {
    expect(operation["x-rate-limit-cost"]).toBe(3);
  });
});

describe("OpenAPI document: problems", () => {
  const document = buildOpenApiDocument(INFO, [route("/plain")]) as {
    components: { schemas: { Problem: { properties: Record<string, { items?: { required?: string[] } }> } } };
  };
  const problem = document.components.schemas.Problem;

  it("names its extension members in one style, camelCase (as TC_NOT_ACCEPTED's acceptedVersion)", () => {
    const names = Object.keys(problem.properties);
    expect(names).toEqual(expect.arrayContaining(["retryAfterSeconds", "requiredScope", "violatedPolicies"]));
    expect(names.filter((name) => !/^[a-z][a-zA-Z0-9]*$/.test(name))).toEqual([]);
  });

  it("documents the list of mistakes, and UNKNOWN_PARAMETER on every operation", () => {
    expect(problem.properties["errors"]!.items!.required).toEqual(["pointer", "detail"]);
    const operation = operationOf(document as unknown as Record<string, unknown>, "/plain");
    expect(operation.responses["400"]!.description).toContain("UNKNOWN_PARAMETER");
    expect(operation.parameters.filter((parameter) => parameter.in === "query").map((p) => p.name)).toEqual(["limit"]);
  });
});
