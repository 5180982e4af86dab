import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "./cursor.js";

const scope = { list: "pending", userAddress: "0x52908400098527886E0F7030069857D2E4169EE7" } as const;
const position = { score: "1763770000123", member: `0x${"ab".repeat(32)}` };

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe("list cursors", () => {
  it("round-trip the last position as an opaque base64url token", () => {
    const cursor = encodeCursor(scope, position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, scope)).toEqual(position);
    expect(
      decodeCursor(encodeCursor(scope, { score: "5", member: `tx:31337:0x${"01".repeat(32)}` }), scope).member,
    ).toBe(`tx:31337:0x${"01".repeat(32)}`);
  });

  it("are bound to the list and the user they came from", () => {
    const cursor = encodeCursor(scope, position);
    expect(codeOf(() => decodeCursor(cursor, { ...scope, list: "expired" }))).toBe("INVALID_CURSOR");
    expect(
      codeOf(() => decodeCursor(cursor, { ...scope, userAddress: "0x0000000000000000000000000000000000000001" })),
    ).toBe("INVALID_CURSOR");
  });

  it.each([
    ["garbage", "not a cursor!"],
    ["base64 of something else", Buffer.from("hello").toString("base64url")],
    [
      "JSON of the wrong shape",
      Buffer.from(JSON.stringify({ v: 1, l: "pending", u: scope.userAddress, s: "x", m: "y" })).toString("base64url"),
    ],
    [
      "a future version",
      Buffer.from(JSON.stringify({ v: 2, l: "pending", u: scope.userAddress, s: "1", m: "y" })).toString("base64url"),
    ],
    [
      "an empty member",
      Buffer.from(JSON.stringify({ v: 1, l: "pending", u: scope.userAddress, s: "1", m: "" })).toString("base64url"),
    ],
    ["null", Buffer.from("null").toString("base64url")],
  ])("reject %s as INVALID_CURSOR", (_what, cursor) => {
    expect(codeOf(() => decodeCursor(cursor, scope))).toBe("INVALID_CURSOR");
  });
});
