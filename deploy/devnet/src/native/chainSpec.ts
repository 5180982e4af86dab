import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PlatformError } from "@platform/errors/base";

/** The committed chain spec's checksum (chain-spec/README.md says where it comes from). */
export const SUBTENSOR_CHAIN_SPEC_SHA256 = "6268b23333ac7f9939b68a6b0a88a69b630fb93c6dadb4014226c19cf22a8d90";

/** src/ and dist/ both sit one level below the package root. */
const specFile = fileURLToPath(new URL("../../chain-spec/raonet-epoch-by-tempo.json", import.meta.url));

export class ChainSpecChecksumError extends PlatformError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, { code: "CHAIN_SPEC_CHECKSUM", retryable: false, cause: options?.cause });
  }
}

/**
 * The path of the Subtensor chain spec (spec version 218) after checking its sha256: a changed or
 * truncated file would run another runtime than the one the tests and figures are about.
 */
export function subtensorChainSpec(path: string = specFile): string {
  const actual = createHash("sha256").update(readFileSync(path)).digest("hex");
  if (actual !== SUBTENSOR_CHAIN_SPEC_SHA256) {
    throw new ChainSpecChecksumError(
      `${path}: sha256 ${actual}, expected ${SUBTENSOR_CHAIN_SPEC_SHA256}; restore it from git`,
    );
  }
  return path;
}
