import { describe, expect, it } from "vitest";
import { backoffDelay, retryDelay } from "./backoff.js";
import { DecodeError, givesUp, TransientError } from "./PlatformError.js";

describe("backoffDelay", () => {
  it("doubles from the first wait per failure, up to the maximum", () => {
    expect(
      [0, 1, 2, 3, 4, 5, 6, 40].map((attempt) => backoffDelay(attempt, { firstMs: 1_000, maxMs: 30_000 })),
    ).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it("stops doubling after maxDoublings, below the maximum if that comes first", () => {
    expect(
      [4, 5, 6, 9].map((attempt) => backoffDelay(attempt, { firstMs: 100, maxMs: 5_000, maxDoublings: 5 })),
    ).toEqual([1_600, 3_200, 3_200, 3_200]);
  });

  it("reads a negative attempt as the first one, and a huge one without overflowing", () => {
    expect(backoffDelay(-1, { firstMs: 250, maxMs: 5_000 })).toBe(250);
    expect(backoffDelay(10_000, { firstMs: 250, maxMs: 5_000 })).toBe(5_000);
  });
});

describe("retryDelay", () => {
  const options = { firstMs: 100, maxMs: 5_000 };

  it("waits as backoffDelay after a retryable error, or one that says nothing", () => {
    expect(retryDelay(new TransientError("away"), 2, options)).toBe(400);
    expect(retryDelay(new Error("ECONNREFUSED"), 2, options)).toBe(400);
    expect(retryDelay(new Error("wrapped", { cause: new TransientError("away") }), 0, options)).toBe(100);
  });

  it("stops at once after an error that says trying again cannot succeed", () => {
    expect(retryDelay(new DecodeError("bad bytes"), 0, options)).toBeUndefined();
    expect(retryDelay(new Error("wrapped", { cause: new DecodeError("bad bytes") }), 3, options)).toBeUndefined();
    expect(givesUp(new TransientError("away", { cause: new DecodeError("underneath") }))).toBe(false);
  });
});
