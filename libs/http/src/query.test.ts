import { AppError } from "@platform/errors";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildOpenApiDocument } from "./openapi.js";
import {
  booleanQuery,
  instantQuery,
  integerItem,
  integerQuery,
  type ListItem,
  listQuery,
  nameItem,
  parseInstant,
} from "./query.js";
import { validateInput } from "./validate.js";

function failure(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
  }
  throw new Error("expected an AppError");
}

const evenItem: ListItem<number> = {
  parse: (text) =>
    /^\d+$/.test(text) && Number(text) % 2 === 0
      ? { ok: true, value: Number(text) }
      : { ok: false, message: "must be even", code: "NOT_EVEN" },
  schema: { type: "integer", multipleOf: 2 },
};

describe("parseInstant", () => {
  it("reads RFC 3339 with any offset and unix seconds, and answers UTC with milliseconds", () => {
    expect(parseInstant("2026-08-20T12:00:00Z")).toBe("2026-08-20T12:00:00.000Z");
    expect(parseInstant("2026-08-20t14:30:00.5+02:30")).toBe("2026-08-20T12:00:00.500Z");
    expect(parseInstant("1787227200")).toBe("2026-08-20T12:00:00.000Z");
    expect(parseInstant("0")).toBe("1970-01-01T00:00:00.000Z");
  });

  it("reads every RFC 3339 date-time JSON Schema's format takes: any fraction digits, a leap second, years before 100", () => {
    expect(parseInstant("2026-08-20T12:00:00.123456789012Z")).toBe("2026-08-20T12:00:00.123Z");
    expect(parseInstant("2016-12-31T23:59:60Z")).toBe("2017-01-01T00:00:00.000Z");
    expect(parseInstant("0000-02-29T00:00:00Z")).toBe("0000-02-29T00:00:00.000Z");
    expect(parseInstant("0050-06-01T00:00:00+01:00")).toBe("0050-05-31T23:00:00.000Z");
  });

  it("refuses dates that Date.parse would roll over, partial dates, signs and fractions of seconds", () => {
    for (const text of [
      "2025-02-29T00:00:00Z",
      "1900-02-29T00:00:00Z",
      "2025-13-01T00:00:00Z",
      "2025-01-01T24:00:00Z",
      "2025-01-01T00:00:61Z",
      "2025-01-01T00:00:00.Z",
      "2025-01-01",
      "2025-01-01T00:00:00",
      "-5",
      "1.5",
      "1e9",
      "",
      " 1",
    ]) {
      expect(parseInstant(text), text).toBeUndefined();
    }
    expect(parseInstant("2024-02-29T00:00:00Z")).toBe("2024-02-29T00:00:00.000Z");
  });
});

describe("query parameter schemas", () => {
  const schema = z.object({
    start: instantQuery("Window start").optional(),
    limit: integerQuery({ min: 1, max: 100, description: "Page size" }).optional(),
    flag: booleanQuery("A switch").optional(),
    netuid: listQuery(integerItem(0, 65_535), { max: 3, description: "Subnets" }).optional(),
    even: listQuery(evenItem, { max: 5, description: "Even numbers" }).optional(),
  });

  it("parses every form", () => {
    expect(
      validateInput(schema, { start: "1787227200", limit: "20", flag: "false", netuid: ["1,2", "3"] }, "query"),
    ).toEqual({
      start: "2026-08-20T12:00:00.000Z",
      limit: 20,
      flag: false,
      netuid: [1, 2, 3],
    });
    expect(validateInput(schema, { netuid: "7", flag: "true" }, "query")).toEqual({ netuid: [7], flag: true });
  });

  it("names the parameter of every bad value", () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ start: "yesterday" }, "start", /RFC 3339/],
      [{ limit: "0x10" }, "limit", /between 1 and 100/],
      [{ limit: "101" }, "limit", /between 1 and 100/],
      [{ limit: ["1", "2"] }, "limit", /./],
      [{ flag: "yes" }, "flag", /true or false/],
      [{ netuid: "1,,2" }, "netuid", /empty item/],
      [{ netuid: "" }, "netuid", /empty item/],
      [{ netuid: "1, 2" }, "netuid", /item ' 2' must be a whole number/],
      [{ netuid: "1,2,3,4" }, "netuid", /more than 3/],
      [{ netuid: "70000" }, "netuid", /item '70000' must be a whole number between 0 and 65535/],
    ];
    for (const [query, parameter, detail] of cases) {
      const error = failure(() => validateInput(schema, query, "query"));
      expect(error.code, JSON.stringify(query)).toBe("INVALID_PARAMETER");
      expect(error.extras).toEqual({ parameter, errors: [{ pointer: `/query/${parameter}`, detail: error.detail }] });
      expect(error.detail).toMatch(detail);
    }
  });

  it("says a missing required list is required", () => {
    const required = z.object({ netuid: listQuery(integerItem(0, 9), { max: 3, description: "Subnets" }) });
    expect(failure(() => validateInput(required, {}, "query")).detail).toBe("query parameter 'netuid' is required");
  });

  it("keeps an item's own code", () => {
    const error = failure(() => validateInput(schema, { even: "2,3" }, "query"));
    expect(error.code).toBe("NOT_EVEN");
    expect(error.detail).toBe("query parameter 'even' item '3' must be even");
  });
});

describe("documented forms", () => {
  const route = (query: z.ZodType) =>
    buildOpenApiDocument({ title: "t", version: "1", description: "d", serverUrl: "http://x" }, [
      {
        method: "get",
        path: "/r",
        operationId: "r",
        query,
        docs: { summary: "s", tags: [], success: { status: 200, description: "ok", contentType: "application/json" } },
        handle: async () => ({ status: 200, body: {} }),
      },
    ]) as { paths: { "/r": { get: { parameters: Array<Record<string, unknown>> } } } };
  const parameters = (query: z.ZodType) =>
    Object.fromEntries(route(query).paths["/r"].get.parameters.map((parameter) => [parameter.name, parameter]));

  it("documents a list as a comma-separated array of its items, an instant as date-time or unix seconds", () => {
    const documented = parameters(
      z.object({
        netuid: listQuery(integerItem(0, 9), { max: 3, description: "Subnets" }).optional(),
        kind: listQuery(nameItem(["a", "b"]), { max: 2, description: "Kinds" }),
        start: instantQuery("Start").optional(),
      }),
    );
    expect(documented.netuid).toMatchObject({
      required: false,
      style: "form",
      explode: false,
      schema: { type: "array", items: { type: "integer", minimum: 0, maximum: 9 }, minItems: 1, maxItems: 3 },
    });
    expect(documented.kind).toMatchObject({
      required: true,
      schema: { type: "array", items: { type: "string", enum: ["a", "b"] } },
    });
    expect(documented.start!.schema).toEqual({
      anyOf: [
        { type: "string", format: "date-time" },
        { type: "string", pattern: "^\\d{1,11}$" },
      ],
      examples: ["2026-08-20T00:00:00Z", "1787184000"],
    });
  });
});
