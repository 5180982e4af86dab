import solc from "solc";
import type { Abi, Hex } from "viem";

export interface CompiledContract {
  /** The Solidity contract name, e.g. `Multicall3`. */
  name: string;
  /** The source unit it came from, relative to `contracts/`. */
  sourceUnit: string;
  abi: Abi;
  /** Creation code; `0x` for interfaces and abstract contracts. */
  bytecode: Hex;
  /** Runtime code, what `anvil_setCode` would place at a fixed address. */
  deployedBytecode: Hex;
}

export interface CompileResult {
  /** `0.8.37+commit.…`, from the pinned npm package. */
  compilerVersion: string;
  /** Sorted by contract name. */
  contracts: CompiledContract[];
  /** Formatted compiler warnings; errors never get here, they throw. */
  warnings: string[];
}

/**
 * Settings are fixed so that the same sources give byte-identical output on every machine: the EVM
 * version does not follow the compiler's default, and the metadata hash and CBOR trailer (which
 * change with comments and file paths) are left out of the bytecode.
 */
const settings = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  metadata: { bytecodeHash: "none", appendCBOR: false },
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
} as const;

interface SolcOutput {
  errors?: { severity: "error" | "warning" | "info"; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >;
}

/** Compiles the given sources (relative path → text) with the pinned `solc` package; throws on any compiler error. */
export function compileContracts(sources: Record<string, string>): CompileResult {
  const input = {
    language: "Solidity",
    sources: Object.fromEntries(
      Object.keys(sources)
        .sort()
        .map((unit) => [unit, { content: sources[unit] }]),
    ),
    settings,
  };
  // Every source is in the input, so an import the compiler asks for is one that does not exist.
  const findImports = (path: string) => ({ error: `${path} is not under contracts/` });
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }) as string) as SolcOutput;

  const problems = output.errors ?? [];
  const errors = problems.filter((problem) => problem.severity === "error");
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((error) => error.formattedMessage).join("\n")}`);
  }

  const contracts: CompiledContract[] = [];
  for (const [sourceUnit, byName] of Object.entries(output.contracts ?? {})) {
    for (const [name, artefact] of Object.entries(byName)) {
      const clash = contracts.find((contract) => contract.name === name);
      if (clash) {
        // Bindings are named after the contract, so two contracts with one name cannot both be generated.
        throw new Error(`contract ${name} is defined in both ${clash.sourceUnit} and ${sourceUnit}`);
      }
      contracts.push({
        name,
        sourceUnit,
        abi: artefact.abi,
        bytecode: `0x${artefact.evm.bytecode.object}`,
        deployedBytecode: `0x${artefact.evm.deployedBytecode.object}`,
      });
    }
  }
  contracts.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  return {
    compilerVersion: (solc.version() as string).replace(/\.Emscripten.*$/, ""),
    contracts,
    warnings: problems.filter((problem) => problem.severity === "warning").map((problem) => problem.formattedMessage),
  };
}
