import { describe, expect, it } from "vitest";
import { generateNonce } from "./nonces.js";

describe("generateNonce", () => {
  it("is 128 random bits, alphanumeric as EIP-4361 requires, and never repeats", () => {
    const nonces = new Set(Array.from({ length: 1_000 }, generateNonce));
    expect(nonces.size).toBe(1_000);
    for (const nonce of nonces) expect(nonce).toMatch(/^[0-9a-f]{32}$/);
  });
});
