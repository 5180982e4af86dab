import { AppError } from "@platform/errors";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validateInput } from "./validate.js";

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
    const error = failure(() => validateInput(z.object({ limit: z.coerce.number().int().max(100) }), { limit: "500" }, "query"));
    expect(error.code).toBe("INVALID_PARAMETER");
    expect(error.httpStatus).toBe(400);
    expect(error.extras).toEqual({ parameter: "limit" });
    expect(error.detail).toMatch(/query parameter 'limit'/);
  });

  it("uses the schema's own code when it has one", () => {
    const error = failure(() => validateInput(z.object({ walletAddress: address }), { walletAddress: "0x12" }, "query"));
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
