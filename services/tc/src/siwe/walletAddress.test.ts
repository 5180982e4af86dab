import { AppError } from "@platform/errors";
import { describe, expect, it } from "vitest";
import { parseWalletAddress } from "./walletAddress.js";

describe("parseWalletAddress", () => {
  it("checksums lowercase and uppercase input", () => {
    expect(parseWalletAddress("0x52908400098527886e0f7030069857d2e4169ee7")).toBe(
      "0x52908400098527886E0F7030069857D2E4169EE7",
    );
    expect(parseWalletAddress("0x52908400098527886E0F7030069857D2E4169EE7")).toBe(
      "0x52908400098527886E0F7030069857D2E4169EE7",
    );
  });

  it.each([
    "",
    "0x1234",
    "52908400098527886e0f7030069857d2e4169ee7",
    "0x52908400098527886E0F7030069857D2E4169Ee7",
    "0xzz908400098527886e0f7030069857d2e4169ee7",
  ])("rejects %j with INVALID_ADDRESS", (input) => {
    const error = (() => {
      try {
        parseWalletAddress(input);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("INVALID_ADDRESS");
  });
});
