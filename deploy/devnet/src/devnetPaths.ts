import { fileURLToPath } from "node:url";

// src/ and dist/ both sit one level below the package root, so these hold for source and built runs.
const packageRoot = new URL("../", import.meta.url);

/** Where the Solidity sources are and where their TypeScript bindings are committed. */
export const devnetPaths = {
  contractsDir: fileURLToPath(new URL("contracts/", packageRoot)),
  generatedDir: fileURLToPath(new URL("src/generated/", packageRoot)),
  /** The published ABIs (renderBindings.ts PUBLISHED_ABIS), in libs/settler. */
  settlerGeneratedDir: fileURLToPath(new URL("../../libs/settler/src/generated/", packageRoot)),
} as const;
