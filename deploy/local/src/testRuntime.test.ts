import { describe, expect, it } from "vitest";
import { testRuntime } from "./testRuntime.js";

describe("testRuntime", () => {
  it("defaults to the sources and takes dist only when asked", () => {
    expect(testRuntime({})).toBe("source");
    expect(testRuntime({ PLATFORM_TEST_RUNTIME: "" })).toBe("source");
    expect(testRuntime({ PLATFORM_TEST_RUNTIME: "dist" })).toBe("dist");
  });

  it("names the variable for anything else", () => {
    expect(() => testRuntime({ PLATFORM_TEST_RUNTIME: "build" })).toThrow(/PLATFORM_TEST_RUNTIME/);
  });
});
