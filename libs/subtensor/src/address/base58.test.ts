import { randomBytes } from "node:crypto";
import { base58 } from "@scure/base";
import { describe, expect, it } from "vitest";
import { base58Decode } from "./base58.js";

describe("base58", () => {
  it("decodes as @scure/base does on random byte strings, leading zeros included", () => {
    for (let round = 0; round < 2_000; round++) {
      const body = randomBytes(round % 40);
      const bytes = Uint8Array.from([...new Uint8Array(round % 4), ...body]);
      const text = base58.encode(bytes);
      expect(base58Decode(text)).toEqual(bytes);
    }
    expect(base58Decode("")).toEqual(new Uint8Array());
  });

  it("refuses characters outside the alphabet", () => {
    for (const text of ["0abc", "abcO", "Il", "ab c", "5é"]) expect(() => base58Decode(text)).toThrow(SyntaxError);
  });
});
