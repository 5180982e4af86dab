import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "@platform/testing";
import { afterAll, describe, expect, it } from "vitest";
import { ChainConfigError, loadChainConfig } from "./loadChainConfig.js";

const dir = tempDir("chain-config");
afterAll(() => dir.remove());

function write(name: string, content: string): string {
  const path = join(dir.path, name);
  writeFileSync(path, content);
  return path;
}

const localChains = fileURLToPath(new URL("../../../deploy/config/local/chains.json", import.meta.url));

describe("loadChainConfig", () => {
  it("loads the local stack's chains.json: origin and destination (the native network is the real runtime, added by the launcher)", async () => {
    const config = await loadChainConfig(localChains);
    expect(config.environment).toBe("local");
    expect(config.chains.map((chain) => [chain.name, chain.chainId, chain.roles])).toEqual([
      ["origin", 31337, ["origin"]],
      ["destination", 31338, ["destination"]],
    ]);
    expect(config.substrate).toBeUndefined();
  });

  it("names the file and the failing path of an invalid file", async () => {
    const path = write(
      "bad.json",
      JSON.stringify({
        environment: "test",
        chains: [
          {
            name: "origin",
            chainId: 1,
            rpcUrl: "ftp://example",
            roles: ["origin"],
            blockTimeMs: 1000,
            finality: { safeDepth: 0, finalizedDepth: 0 },
          },
        ],
      }),
    );
    const error = await loadChainConfig(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ChainConfigError);
    expect((error as ChainConfigError).message).toContain(path);
    expect((error as ChainConfigError).problems).toEqual(["chains[0].rpcUrl: must be an http(s) URL"]);
  });

  it("names the file when it is not JSON or does not exist", async () => {
    const notJson = write("not.json", "{ chains: ");
    await expect(loadChainConfig(notJson)).rejects.toThrow(
      new RegExp(`${notJson}: invalid chain configuration:\\n  is not JSON`),
    );
    const missing = join(dir.path, "missing.json");
    await expect(loadChainConfig(missing)).rejects.toThrow(
      `${missing}: invalid chain configuration:\n  cannot be read (ENOENT)`,
    );
  });

  it("reports a missing required field by its path", async () => {
    const path = write("missing-field.json", JSON.stringify({ environment: "test", chains: [{ name: "origin" }] }));
    const error = (await loadChainConfig(path).catch((caught: unknown) => caught)) as ChainConfigError;
    expect(error.problems).toContain("chains[0].chainId: Invalid input: expected number, received undefined");
  });
});
