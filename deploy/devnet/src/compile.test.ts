import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileContracts } from "./compileContracts.js";
import { devnetPaths } from "./devnetPaths.js";
import { readContractSources } from "./readContractSources.js";
import { renderBindings } from "./renderBindings.js";

describe("generated contract bindings", () => {
  it("match a fresh compilation of contracts/ (run `pnpm gen:contracts` after changing a .sol)", async () => {
    const expected = renderBindings(compileContracts(await readContractSources(devnetPaths.contractsDir)));
    const committed = (await readdir(devnetPaths.generatedDir)).sort();
    expect(committed).toEqual(Object.keys(expected).sort());
    for (const [name, content] of Object.entries(expected)) {
      expect(await readFile(join(devnetPaths.generatedDir, name), "utf8"), `src/generated/${name}`).toBe(content);
    }
  });
});

describe("compileContracts", () => {
  it("fails with the compiler's own message", () => {
    const broken = { "Broken.sol": "pragma solidity 0.8.37;\ncontract Broken { function f() external { undefinedThing(); } }\n" };
    expect(() => compileContracts(broken)).toThrow(/Undeclared identifier/);
  });

  it("names bindings in lowerCamelCase, treating a leading acronym as one word, and skips bytecode for interfaces", () => {
    const sources = {
      "A.sol":
        "pragma solidity 0.8.37;\ncontract ERC20Mock {}\ncontract ABCToken {}\ninterface IThing { function x() external; }\n",
    };
    const files = renderBindings(compileContracts(sources));
    expect(Object.keys(files).sort()).toEqual(["ABCToken.ts", "ERC20Mock.ts", "IThing.ts", "index.ts"]);
    expect(files["ERC20Mock.ts"]).toContain("export const erc20MockBytecode = \"0x");
    expect(files["ABCToken.ts"]).toContain("export const abcTokenAbi = [");
    expect(files["IThing.ts"]).toContain("export const iThingAbi = [");
    expect(files["IThing.ts"]).not.toContain("Bytecode");
  });

  it("rejects two contracts with the same name, whose bindings would collide", () => {
    const sources = {
      "a/Same.sol": "pragma solidity 0.8.37;\ncontract Same {}\n",
      "b/Same.sol": "pragma solidity 0.8.37;\ncontract Same {}\n",
    };
    expect(() => compileContracts(sources)).toThrow(/Same is defined in both a\/Same.sol and b\/Same.sol/);
  });
});
