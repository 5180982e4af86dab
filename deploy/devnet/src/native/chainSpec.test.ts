import { copyFileSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startChopsticks, tempDir, type RunningChopsticks } from "@platform/testing";
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

  describe("under chopsticks", () => {
    let node: RunningChopsticks | undefined;
    afterAll(async () => node?.stop());

    it("runs runtime spec 218 and builds blocks on demand", async () => {
      node = await startChopsticks({ genesis: subtensorChainSpec(), logFile: join(tempDir("chopsticks").path, "node.log") });
      const version = await node.request<{ specName: string; specVersion: number }>("state_getRuntimeVersion");
      expect(version).toMatchObject({ specName: "node-subtensor", specVersion: 218 });
      const before = await node.request<{ number: string }>("chain_getHeader");
      const hash = await node.newBlocks(2);
      const after = await node.request<{ number: string }>("chain_getHeader", [hash]);
      expect(Number(after.number) - Number(before.number)).toBe(2);
    }, 120_000);
  });
});
