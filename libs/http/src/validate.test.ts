import { AppError } from "@platform/errors";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { unknownDiscriminatorCodes, validateInput, validateRequest } from "./validate.js";

const address = z.string().refine((value) => /^0x[0-9a-fA-F]{40}$/.test(value), {
  error: "must be a 20-byte hex address",
  params: { code: "INVALID_ADDRESS" },
});

function failure(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
  }
  throw new Error("expected an AppError");
}

describe("validateInput", () => {
  it("returns parsed values", () => {
    const schema = z.object({ limit: z.coerce.number().int().max(100).default(20) });
    expect(validateInput(schema, {}, "query")).toEqual({ limit: 20 });
  });

  it("names the bad query parameter with INVALID_PARAMETER", () => {
    const error = failure(() =>
      validateInput(z.object({ limit: z.coerce.number().int().max(100) }), { limit: "500" }, "query"),
    );
    expect(error.code).toBe("INVALID_PARAMETER");
    expect(error.httpStatus).toBe(400);
    expect(error.extras).toEqual({ parameter: "limit", errors: [{ pointer: "/query/limit", detail: error.detail }] });
    expect(error.detail).toMatch(/query parameter 'limit'/);
  });

  it("uses the schema's own code when it has one", () => {
    const error = failure(() =>
      validateInput(z.object({ walletAddress: address }), { walletAddress: "0x12" }, "query"),
    );
    expect(error.code).toBe("INVALID_ADDRESS");
    expect(error.detail).toBe("query parameter 'walletAddress' must be a 20-byte hex address");
  });

  it("says a missing parameter is required", () => {
    const error = failure(() => validateInput(z.object({ walletAddress: address }), {}, "query"));
    expect(error.detail).toBe("query parameter 'walletAddress' is required");
  });

  it("reports body problems as INVALID_REQUEST", () => {
    const error = failure(() => validateInput(z.object({ type: z.string() }), { type: 3 }, "body"));
    expect(error.code).toBe("INVALID_REQUEST");
    expect(error.extras).toEqual({ parameter: "type", errors: [{ pointer: "/type", detail: error.detail }] });
  });
});

describe("validateInput of a discriminated union", () => {
  const grant = z
    .discriminatedUnion(
      "type",
      [z.object({ type: z.literal("A"), a: z.string() }), z.object({ type: z.literal("B"), b: z.string() })],
      {
        error: (issue) =>
          (issue.input as { type?: unknown } | undefined)?.type === undefined ? "is required" : "must be A or B",
      },
    )
    .register(unknownDiscriminatorCodes, { code: "UNSUPPORTED_KIND" });

  it("answers the union's registered code for a value none of its options has", () => {
    const error = failure(() => validateInput(grant, { type: "C" }, "body"));
    expect([error.code, error.detail, error.extras]).toEqual([
      "UNSUPPORTED_KIND",
      "body field 'type' must be A or B",
      { parameter: "type", errors: [{ pointer: "/type", detail: "body field 'type' must be A or B" }] },
    ]);
  });

  it("answers the generic code when the discriminator is missing, and for a missing field of the chosen option", () => {
    expect([
      failure(() => validateInput(grant, {}, "body")).code,
      failure(() => validateInput(grant, {}, "body")).detail,
    ]).toEqual(["INVALID_REQUEST", "body field 'type' is required"]);
    const error = failure(() => validateInput(grant, { type: "B" }, "body"));
    expect([error.code, error.detail]).toEqual(["INVALID_REQUEST", "body field 'b' is required"]);
  });
});

describe("validateRequest", () => {
  const schemas = {
    params: z.object({ id: z.coerce.number().int().positive() }),
    query: z.object({ limit: z.coerce.number().int().max(100).optional(), "a/b~c": z.string().optional() }),
    body: z.object({ name: z.string(), order: z.object({ amount: z.string(), deadline: z.number() }) }),
  };
  const good = { params: { id: "7" }, query: { limit: "5" }, body: { name: "n", order: { amount: "1", deadline: 2 } } };

  it("returns every part parsed", () => {
    expect(validateRequest(schemas, good)).toEqual({
      params: { id: 7 },
      query: { limit: 5 },
      body: { name: "n", order: { amount: "1", deadline: 2 } },
    });
  });

  it("refuses a query parameter the schema does not list, naming each, and takes the listed ones", () => {
    const error = failure(() => validateRequest(schemas, { ...good, query: { limt: "5", x: "", "a/b~c": "ok" } }));
    expect([error.code, error.httpStatus, error.extras["parameter"]]).toEqual(["UNKNOWN_PARAMETER", 400, "limt"]);
    expect(error.detail).toBe(
      "unknown query parameter 'limt': this operation takes limit, a/b~c (and 1 more: see errors)",
    );
    expect(error.extras["errors"]).toEqual([
      { pointer: "/query/limt", detail: "unknown query parameter 'limt': this operation takes limit, a/b~c" },
      { pointer: "/query/x", detail: "unknown query parameter 'x': this operation takes limit, a/b~c" },
    ]);
  });

  it("refuses any query parameter on a route without a query schema", () => {
    const error = failure(() => validateRequest({}, { params: {}, query: { _: "1" }, body: undefined }));
    expect([error.code, error.detail]).toEqual([
      "UNKNOWN_PARAMETER",
      "unknown query parameter '_': this operation takes no query parameters",
    ]);
  });

  it("lists every mistake of path, query and body in one refusal, with RFC 6901 pointers", () => {
    const error = failure(() =>
      validateRequest(schemas, {
        params: { id: "x" },
        query: { limit: "500", typo: "1" },
        body: { order: { amount: 1 } },
      }),
    );
    expect(error.code).toBe("INVALID_PARAMETER");
    expect(error.detail).toMatch(/^path parameter 'id' .* \(and 5 more: see errors\)$/);
    expect((error.extras["errors"] as Array<{ pointer: string }>).map((item) => item.pointer)).toEqual([
      "/path/id",
      "/query/typo",
      "/query/limit",
      "/name",
      "/order/amount",
      "/order/deadline",
    ]);
  });

  it("escapes ~ and / in pointers (RFC 6901)", () => {
    const error = failure(() =>
      validateRequest({ body: z.object({ "a/b~c": z.string() }) }, { params: {}, query: {}, body: {} }),
    );
    expect(error.extras["errors"]).toEqual([{ pointer: "/a~1b~0c", detail: "body field 'a/b~c' is required" }]);
  });
});
