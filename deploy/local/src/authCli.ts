import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "./paths.js";
import type { ServiceRuntime } from "./serviceProcesses.js";

const run = promisify(execFile);

/** Runs auth's admin CLI (the same one operators use) and returns what it printed. */
export async function authCli(
  runtime: ServiceRuntime,
  args: string[],
  env: Record<string, string> = {},
): Promise<string> {
  const command =
    runtime === "dist"
      ? [join(repoRoot, "services", "auth", "dist", "cli", "main.js")]
      : [
          "--conditions=@platform/source",
          "--import",
          "tsx",
          join(repoRoot, "services", "auth", "src", "cli", "main.ts"),
        ];
  try {
    const { stdout } = await run(process.execPath, [...command, ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      timeout: 60_000,
    });
    return stdout;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? "";
    throw new Error(`auth CLI ${args.slice(0, 2).join(" ")} failed: ${stderr.trim() || String(error)}`, {
      cause: error,
    });
  }
}
