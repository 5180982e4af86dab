import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { AppError, invalidArgument, unavailable } from "./AppError.js";
import { isRetryable, PlatformError } from "./PlatformError.js";

class ExampleRaceLost extends PlatformError {
  constructor(options?: ErrorOptions) {
    super("another writer won", { code: "RACE_LOST", retryable: true, cause: options?.cause });
  }
}

describe("PlatformError", () => {
  it("carries a code, whether trying again may help, its cause, and its subclass's name", () => {
    const cause = new Error("WATCH failed");
    const error = new ExampleRaceLost({ cause });
    expect([error.code, error.retryable, error.cause, error.name, error instanceof Error]).toEqual([
      "RACE_LOST",
      true,
      cause,
      "ExampleRaceLost",
      true,
    ]);
    expect(String(error.stack)).toContain("ExampleRaceLost: another writer won");
  });

  it("says an AppError is retryable as its gRPC status advises", () => {
    expect(unavailable("UNAVAILABLE", "away").retryable).toBe(true);
    expect(new AppError({ code: "RACE", grpcStatus: status.ABORTED, detail: "lost" }).retryable).toBe(true);
    expect(invalidArgument("INVALID_PARAMETER", "bad").retryable).toBe(false);
    expect(invalidArgument("INVALID_PARAMETER", "bad")).toBeInstanceOf(PlatformError);
  });

  it("finds the nearest platform error down a cause chain (a plain wrapper says nothing)", () => {
    expect(isRetryable(new Error("wrapped", { cause: new ExampleRaceLost() }))).toBe(true);
    expect(isRetryable(new Error("wrapped", { cause: invalidArgument("X", "y", {}, new ExampleRaceLost()) }))).toBe(
      false,
    );
    expect(isRetryable(new Error("plain"))).toBe(false);
    const loop = new Error("loop");
    (loop as { cause?: unknown }).cause = loop;
    expect(isRetryable(loop)).toBe(false);
  });
});

describe("one error base", () => {
  const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

  it("every error class of the platform extends PlatformError, not Error", async () => {
    const offenders: string[] = [];
    for (const top of ["libs", "services", "deploy", "bench", "test"]) {
      for (const entry of await readdir(join(REPO_ROOT, top), { recursive: true, withFileTypes: true })) {
        const path = join(entry.parentPath, entry.name);
        if (
          !entry.isFile() ||
          !entry.name.endsWith(".ts") ||
          /node_modules|\/dist\//.test(path) ||
          // The published client stands alone: it depends on nothing private of the platform.
          path.includes("/libs/client/") ||
          entry.name.endsWith(".test.ts")
        )
          continue;
        for (const match of (await readFile(path, "utf8")).matchAll(/\bclass (\w+) extends Error\b/g)) {
          if (match[1] !== "PlatformError") offenders.push(`${path.slice(REPO_ROOT.length)}: ${match[1]}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
