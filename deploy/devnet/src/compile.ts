import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { compileContracts } from "./compileContracts.js";
import { devnetPaths } from "./devnetPaths.js";
import { readContractSources } from "./readContractSources.js";
import { renderBindings, renderPublishedAbis } from "./renderBindings.js";

/**
 * `pnpm gen:contracts`: compiles deploy/devnet/contracts and rewrites src/generated (and the published
 * ABIs in libs/settler/src/generated). Files for contracts
 * that no longer exist are removed, so the generated folder always mirrors the sources exactly.
 */
async function main(): Promise<void> {
  const result = compileContracts(await readContractSources(devnetPaths.contractsDir));
  for (const warning of result.warnings) process.stderr.write(`${warning}\n`);
  await writeFolder(devnetPaths.generatedDir, renderBindings(result));
  await writeFolder(devnetPaths.settlerGeneratedDir, renderPublishedAbis(result));
  process.stdout.write(
    `gen:contracts: ${result.contracts.length} contract(s) with solc ${result.compilerVersion} → ${devnetPaths.generatedDir}\n`,
  );
}

async function writeFolder(folder: string, files: Record<string, string>): Promise<void> {
  await mkdir(folder, { recursive: true });
  for (const existing of await readdir(folder)) {
    if (!(existing in files)) await rm(join(folder, existing));
  }
  for (const [name, content] of Object.entries(files)) await writeFile(join(folder, name), content);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
