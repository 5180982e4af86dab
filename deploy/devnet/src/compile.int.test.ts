import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileContracts } from "./compileContracts.js";
import { devnetPaths } from "./devnetPaths.js";
import { readContractSources } from "./readContractSources.js";
import { renderBindings, renderPublishedAbis } from "./renderBindings.js";

describe("generated contract bindings", () => {
  it("match a fresh compilation of contracts/, here and in libs/settler (run `pnpm gen:contracts` after changing a .sol)", async () => {
    const compiled = compileContracts(await readContractSources(devnetPaths.contractsDir));
    for (const [folder, expected] of [
      [devnetPaths.generatedDir, renderBindings(compiled)],
      [devnetPaths.settlerGeneratedDir, renderPublishedAbis(compiled)],
    ] as const) {
      expect((await readdir(folder)).sort()).toEqual(Object.keys(expected).sort());
      for (const [name, content] of Object.entries(expected)) {
        expect(await readFile(join(folder, name), "utf8"), `${folder}${name}`).toBe(content);
      }
    }
  });
});

describe("compileContracts", () => {
  it("fails with the compiler's own message", () => {
    const broken = {
      "Broken.sol": "pragma solidity 0.8.37;\ncontract Broken { function f() external { undefinedThing(); } }\n",
    };
    expect(() => compileContracts(broken)).toThrow(/Undeclared identifier/);
  });

  it("names bindings in lowerCamelCase, treating a leading acronym as one word, and skips bytecode for interfaces", () => {
    const sources = {
      "A.sol":
        "pragma solidity 0.8.37;\ncontract ERC20Mock {}\ncontract ABCToken {}\ninterface IThing { function x() external; }\n",
    };
    const files = renderBindings(compileContracts(sources));
    expect(Object.keys(files).sort()).toEqual(["ABCToken.ts", "ERC20Mock.ts", "IThing.ts", "index.ts"]);
    expect(files["ERC20Mock.ts"]).toContain('export const erc20MockBytecode = "0x');
    expect(files["ABCToken.ts"]).toContain("export const abcTokenAbi = [");
    expect(files["IThing.ts"]).toContain("export const iThingAbi = [");
    expect(files["IThing.ts"]).not.toContain("Bytecode");
  });

  it("re-exports a published contract's ABI from libs/settler, which holds it without bytecode", () => {
    const compiled = compileContracts({ "A.sol": "pragma solidity 0.8.37;\ncontract Settler {}\ncontract Other {}\n" });
    const files = renderBindings(compiled, new Set(["Settler"]));
    expect(files["Settler.ts"]).toContain('export { settlerAbi } from "@platform/settler";');
    expect(files["Settler.ts"]).toContain('export const settlerBytecode = "0x');
    expect(files["Other.ts"]).toContain("export const otherAbi = [");
    const published = renderPublishedAbis(compiled, new Set(["Settler"]));
    expect(Object.keys(published)).toEqual(["settlerAbi.ts"]);
    expect(published["settlerAbi.ts"]).toContain("export const settlerAbi = [");
    expect(published["settlerAbi.ts"]).not.toContain("Bytecode");
  });

  it("rejects two contracts with the same name, whose bindings would collide", () => {
    const sources = {
      "a/Same.sol": "pragma solidity 0.8.37;\ncontract Same {}\n",
      "b/Same.sol": "pragma solidity 0.8.37;\ncontract Same {}\n",
    };
    expect(() => compileContracts(sources)).toThrow(/Same is defined in both a\/Same.sol and b\/Same.sol/);
  });
});
