import { appendFileSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@platform/testing";
import { describe, expect, it } from "vitest";
import { ChainSpecChecksumError, subtensorChainSpec } from "./chainSpec.js";

describe("the Subtensor chain spec", () => {
  it("passes its checksum, and a changed copy does not", () => {
    const path = subtensorChainSpec();
    const copy = join(tempDir("chain-spec").path, "raonet.json");
    copyFileSync(path, copy);
    expect(subtensorChainSpec(copy)).toBe(copy);
    appendFileSync(copy, " ");
    expect(() => subtensorChainSpec(copy)).toThrow(ChainSpecChecksumError);
  });
});
