import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { compileContracts } from "./compileContracts.js";
import { devnetPaths } from "./devnetPaths.js";
import { readContractSources } from "./readContractSources.js";
import { renderBindings } from "./renderBindings.js";

/**
 * `pnpm gen:contracts`: compiles deploy/devnet/contracts and rewrites src/generated. Files for contracts
 * that no longer exist are removed, so the generated folder always mirrors the sources exactly.
 */
async function main(): Promise<void> {
  const result = compileContracts(await readContractSources(devnetPaths.contractsDir));
  for (const warning of result.warnings) process.stderr.write(`${warning}\n`);
  const files = renderBindings(result);

  await mkdir(devnetPaths.generatedDir, { recursive: true });
  for (const existing of await readdir(devnetPaths.generatedDir)) {
    if (!(existing in files)) await rm(join(devnetPaths.generatedDir, existing));
  }
  for (const [name, content] of Object.entries(files)) {
    await writeFile(join(devnetPaths.generatedDir, name), content);
  }
  process.stdout.write(
    `gen:contracts: ${result.contracts.length} contract(s) with solc ${result.compilerVersion} → ${devnetPaths.generatedDir}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
