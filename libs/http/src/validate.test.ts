import { AppError } from "@platform/errors";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { unknownDiscriminatorCodes, validateInput } from "./validate.js";

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
    expect(error.extras).toEqual({ parameter: "limit" });
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
    expect(error.extras).toEqual({ parameter: "type" });
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
      { parameter: "type" },
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
