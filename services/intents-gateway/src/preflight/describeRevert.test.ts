import { fullSettlerAbi, testTokenAbi } from "@platform/devnet";
import { encodeErrorResult, type Address } from "viem";
import { describe, expect, it } from "vitest";
import { describeRevertData } from "./describeRevert.js";

const token: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";

describe("describeRevertData", () => {
  it("names a settler error with its arguments", () => {
    const data = encodeErrorResult({ abi: fullSettlerAbi, errorName: "FillDeadlineOutOfBounds", args: [100, 130n, 86_500n] });
    expect(describeRevertData(data)).toEqual({ name: "FillDeadlineOutOfBounds", text: "FillDeadlineOutOfBounds(fillDeadline=100, earliest=130, latest=86500)" });
  });

  it("decodes the token's error inside TokenTransferFailed", () => {
    const reason = encodeErrorResult({ abi: testTokenAbi, errorName: "ERC20InsufficientAllowance", args: [token, 0n, 5n] });
    const data = encodeErrorResult({ abi: fullSettlerAbi, errorName: "TokenTransferFailed", args: [token, reason] });
    expect(describeRevertData(data)).toEqual({
      name: "TokenTransferFailed",
      text: `TokenTransferFailed(token=${token}, reason=ERC20InsufficientAllowance(spender=${token}, allowance=0, needed=5))`,
    });
  });

  it("says when there is nothing to decode", () => {
    expect(describeRevertData("0x").name).toBe("unknown");
    expect(describeRevertData("0xdeadbeef")).toEqual({ name: "unknown", text: "reverted with undecoded data 0xdeadbeef" });
  });
});
