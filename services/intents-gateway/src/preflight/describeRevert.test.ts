import { fullSettlerAbi, testTokenAbi } from "@platform/devnet";
import { type Address, encodeErrorResult } from "viem";
import { describe, expect, it } from "vitest";
import { describeRevertData, MAX_REVERT_DATA_BYTES, MAX_REVERT_NESTING } from "./describeRevert.js";

const token: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";
const errorStringAbi = [{ type: "error", name: "Error", inputs: [{ type: "string", name: "message" }] }] as const;

describe("describeRevertData", () => {
  it("names a settler error with its arguments", () => {
    const data = encodeErrorResult({
      abi: fullSettlerAbi,
      errorName: "FillDeadlineOutOfBounds",
      args: [100, 130n, 86_500n],
    });
    expect(describeRevertData(data)).toEqual({
      name: "FillDeadlineOutOfBounds",
      text: "FillDeadlineOutOfBounds(fillDeadline=100, earliest=130, latest=86500)",
    });
  });

  it("decodes the token's error inside TokenTransferFailed", () => {
    const reason = encodeErrorResult({
      abi: testTokenAbi,
      errorName: "ERC20InsufficientAllowance",
      args: [token, 0n, 5n],
    });
    const data = encodeErrorResult({ abi: fullSettlerAbi, errorName: "TokenTransferFailed", args: [token, reason] });
    expect(describeRevertData(data)).toEqual({
      name: "TokenTransferFailed",
      text: `TokenTransferFailed(token=${token}, reason=ERC20InsufficientAllowance(spender=${token}, allowance=0, needed=5))`,
    });
  });

  it("says when there is nothing to decode", () => {
    expect(describeRevertData("0x").name).toBe("unknown");
    expect(describeRevertData("0xdeadbeef")).toEqual({
      name: "unknown",
      text: "reverted with undecoded data 0xdeadbeef",
    });
  });

  it("answers a hostile token's megabytes of nested reverts at once: only 2 KB are decoded, and 3 levels", () => {
    // 512 KB of reason, nested 40 deep: each level of the old decoder walked the whole rest again (2.2 s here).
    const message = encodeErrorResult({ abi: errorStringAbi, errorName: "Error", args: ["x".repeat(512 * 1_024)] });
    let data = message;
    for (let level = 0; level < 40; level++)
      data = encodeErrorResult({ abi: fullSettlerAbi, errorName: "TokenTransferFailed", args: [token, data] });
    const started = performance.now();
    const described = describeRevertData(data);
    expect(performance.now() - started).toBeLessThan(50);
    expect(described.name).toBe("unknown");
    expect(described.text).toContain(`over the ${MAX_REVERT_DATA_BYTES} decoded`);

    // Small but deep: decoded down to the limit, the rest named by its size.
    let deep = encodeErrorResult({ abi: testTokenAbi, errorName: "ERC20InsufficientAllowance", args: [token, 0n, 5n] });
    for (let level = 0; level < 6; level++)
      deep = encodeErrorResult({ abi: fullSettlerAbi, errorName: "TokenTransferFailed", args: [token, deep] });
    expect((deep.length - 2) / 2).toBeLessThanOrEqual(MAX_REVERT_DATA_BYTES);
    const text = describeRevertData(deep).text;
    expect(text.split("TokenTransferFailed(").length - 1).toBe(MAX_REVERT_NESTING);
    expect(text).toContain("nested too deep to decode");
  });
});
