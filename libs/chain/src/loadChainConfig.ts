import { readFile } from "node:fs/promises";
import { PlatformError } from "@platform/errors/base";
import type { z } from "zod";
import { type ChainConfig, chainConfigSchema } from "./chainConfig.js";

/** A chains.json that cannot be used; the message names the file and each failing path. */
export class ChainConfigError extends PlatformError {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
    options?: ErrorOptions,
  ) {
    super(`${file}: invalid chain configuration:\n${problems.map((problem) => `  ${problem}`).join("\n")}`, {
      code: "INVALID_CHAIN_CONFIG",
      retryable: false,
      cause: options?.cause,
    });
  }
}

/** Reads and validates a `deploy/config/<env>/chains.json`; throws ChainConfigError when it cannot be used. */
export async function loadChainConfig(path: string): Promise<ChainConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ChainConfigError(path, [`cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`], {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ChainConfigError(path, [`is not JSON: ${(error as Error).message}`], { cause: error });
  }
  const result = chainConfigSchema.safeParse(json);
  if (!result.success) throw new ChainConfigError(path, result.error.issues.map(describeIssue));
  return result.data;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  return `${formatPath(issue.path)}: ${issue.message}`;
}

/** `["chains", 1, "rpcUrl"]` → `chains[1].rpcUrl`, the way a reader would point into the JSON. */
function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(top level)";
  return path
    .map((key, index) => (typeof key === "number" ? `[${key}]` : `${index === 0 ? "" : "."}${String(key)}`))
    .join("");
}
