import { AppError } from "@platform/errors";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildOpenApiDocument } from "./openapi.js";
import { type ParameterRule, parameterRules, withParameterRules } from "./parameterRules.js";
import { instantQuery, integerQuery } from "./query.js";
import { validateInput } from "./validate.js";

const RULES: ParameterRule[] = [
  {
    kind: "exclusive",
    groups: [
      ["start", "end"],
      ["block_start", "block_end"],
    ],
  },
  { kind: "ordered", first: "start", second: "end", strict: true, compare: "instant", message: "must be after start" },
  {
    kind: "ordered",
    first: "block_start",
    second: "block_end",
    strict: false,
    compare: "integer",
    message: "must not be below block_start",
  },
  { kind: "ordered", first: "min", second: "max", strict: false, compare: "decimal", message: "must not be below min" },
];
const block = integerQuery({ min: 0, max: 1e9, description: "block" }).optional();
const schema = withParameterRules(
  z.object({
    start: instantQuery("s").optional(),
    end: instantQuery("e").optional(),
    block_start: block,
    block_end: block,
    min: z.string().optional(),
    max: z.string().optional(),
  }),
  RULES,
);

function refusal(query: Record<string, string>): { parameter: unknown; detail: string } | undefined {
  try {
    validateInput(schema, query, "query");
    return undefined;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    expect(error.code).toBe("INVALID_PARAMETER");
    return { parameter: error.extras?.parameter, detail: error.detail };
  }
}

describe("withParameterRules", () => {
  it("refuses time and block bounds together, naming the first block bound", () => {
    expect(refusal({ end: "1000", block_end: "5" })).toEqual({
      parameter: "block_end",
      detail: "query parameter 'block_end' cannot be combined with start/end",
    });
    expect(refusal({ start: "1000", block_start: "5", block_end: "6" })?.parameter).toBe("block_start");
  });

  it("orders instants strictly (as instants, whatever their spelling), blocks and decimals loosely", () => {
    expect(refusal({ start: "1970-01-01T00:16:40Z", end: "1000" })).toEqual({
      parameter: "end",
      detail: "query parameter 'end' must be after start",
    });
    expect(refusal({ start: "999", end: "1970-01-01T01:16:40+01:00" })).toBeUndefined();
    expect(refusal({ block_start: "7", block_end: "7" })).toBeUndefined();
    expect(refusal({ block_start: "8", block_end: "7" })?.parameter).toBe("block_end");
    expect(refusal({ min: "100000000000000000001", max: "100000000000000000000" })?.detail).toBe(
      "query parameter 'max' must not be below min",
    );
    expect(refusal({ min: "9", max: "10" })).toBeUndefined();
  });

  it("leaves a value its own schema refused to that schema", () => {
    const amounts = withParameterRules(
      z.object({
        min: z
          .string()
          .regex(/^[0-9]+$/)
          .optional(),
        max: z
          .string()
          .regex(/^[0-9]+$/)
          .optional(),
      }),
      RULES.slice(3),
    );
    const error = (() => {
      try {
        validateInput(amounts, { min: "1", max: "null" }, "query");
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).extras).toMatchObject({ parameter: "max" });
  });

  it("publishes the very rules it checks as the operation's x-parameter-rules", () => {
    expect(parameterRules.get(schema)?.rules).toBe(RULES);
    const document = buildOpenApiDocument({ title: "t", version: "1", description: "d", serverUrl: "http://x" }, [
      {
        method: "get",
        path: "/r",
        operationId: "r",
        query: schema,
        docs: { summary: "s", tags: [], success: { status: 200, description: "ok", contentType: "application/json" } },
        handle: async () => ({ status: 200, body: {} }),
      },
    ]) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    expect(document.paths["/r"]!.get!["x-parameter-rules"]).toEqual(RULES);
  });
});
