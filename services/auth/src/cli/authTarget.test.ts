import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@platform/testing";
import { afterAll, describe, expect, it } from "vitest";
import { resolveAuthTarget, TargetError } from "./authTarget.js";

const dir = tempDir("auth-cli");
afterAll(() => dir.remove());

describe("where the CLI finds auth", () => {
  it("prefers AUTH_ADMIN_GRPC_TARGET, else the stack descriptor's auth process (its admin listener, never the gateway-facing one)", () => {
    const state = join(dir.path, "state");
    mkdirSync(state);
    writeFileSync(
      join(state, "stack.json"),
      JSON.stringify({
        processes: [
          { name: "tc", grpcTarget: "127.0.0.1:1" },
          { name: "auth", grpcTarget: "127.0.0.1:4000", adminGrpcTarget: "127.0.0.1:4100" },
        ],
      }),
    );
    expect(resolveAuthTarget({ AUTH_ADMIN_GRPC_TARGET: "127.0.0.1:50061", STACK_STATE_DIR: state })).toBe(
      "127.0.0.1:50061",
    );
    expect(resolveAuthTarget({ AUTH_GRPC_TARGET: "auth:50051", STACK_STATE_DIR: state })).toBe("127.0.0.1:4100");
    expect(resolveAuthTarget({ STACK_STATE_DIR: state })).toBe("127.0.0.1:4100");
    expect(resolveAuthTarget({}, state)).toBe("127.0.0.1:4100");
  });

  it("says what to do when there is neither", () => {
    expect(() => resolveAuthTarget({}, join(dir.path, "none"))).toThrow(TargetError);
    expect(() => resolveAuthTarget({}, join(dir.path, "none"))).toThrow(/set AUTH_ADMIN_GRPC_TARGET/);
    const empty = join(dir.path, "empty");
    mkdirSync(empty);
    writeFileSync(join(empty, "stack.json"), JSON.stringify({ processes: [] }));
    expect(() => resolveAuthTarget({ STACK_STATE_DIR: empty })).toThrow(/no auth process/);
  });
});
