import { describe, expect, it } from "vitest";
import { isDependencyUnavailable } from "./dependencyUnavailable.js";

describe("isDependencyUnavailable", () => {
  it("recognises a dependency that is away, along the cause chain", () => {
    expect(isDependencyUnavailable(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(
      true,
    );
    expect(isDependencyUnavailable(new Error("Connection is closed."))).toBe(true);
    expect(isDependencyUnavailable(new Error("Command timed out"))).toBe(true);
    expect(isDependencyUnavailable(new Error("LOADING Redis is loading the dataset in memory"))).toBe(true);
    expect(
      isDependencyUnavailable(
        Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { code: "ECONNREFUSED" }),
      ),
    ).toBe(true);
    expect(isDependencyUnavailable(Object.assign(new Error("x"), { name: "MaxRetriesPerRequestError" }))).toBe(true);
    expect(
      isDependencyUnavailable(new Error("reading the pool failed", { cause: new Error("Command timed out") })),
    ).toBe(true);
  });

  it("leaves faults of the code, and non-errors, alone", () => {
    expect(isDependencyUnavailable(new TypeError("Cannot read properties of undefined"))).toBe(false);
    expect(
      isDependencyUnavailable(new Error("WRONGTYPE Operation against a key holding the wrong kind of value")),
    ).toBe(false);
    expect(isDependencyUnavailable("Connection is closed.")).toBe(false);
    expect(isDependencyUnavailable(undefined)).toBe(false);
  });
});
