import { erc20ErrorsAbi, fullSettlerAbi as publishedSettlerAbi } from "@platform/settler";
import type { Abi } from "viem";
import { formatAbiItem } from "viem/utils";
import { describe, expect, it } from "vitest";
import { fullSettlerAbi, testTokenAbi } from "../generated/index.js";

type AbiError = Extract<Abi[number], { type: "error" }>;

describe("what libs/settler publishes for the services", () => {
  it("is the devnet's own FullSettler ABI (the binding re-exports it)", () => {
    expect(fullSettlerAbi).toBe(publishedSettlerAbi);
  });

  it("names every error the devnet's token raises on a transfer (all but the mint-only NotMinter)", () => {
    const signatures = (abi: readonly { type: string }[]) =>
      abi.filter((item): item is AbiError => item.type === "error").map((item) => formatAbiItem(item));
    const tokenErrors = signatures(testTokenAbi).filter((signature) => !signature.startsWith("NotMinter("));
    expect(tokenErrors.length).toBeGreaterThan(0);
    expect(signatures(erc20ErrorsAbi)).toEqual(expect.arrayContaining(tokenErrors));
  });
});
