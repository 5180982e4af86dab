import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface InstallSize {
  spec: string;
  bytes: number;
  packages: number;
  /** The five largest installed packages, bytes. */
  largest: [string, number][];
  seconds: number;
  error?: string;
}

/**
 * The on-disk size of a package's whole production dependency closure, as a fresh
 * `npm install <spec> --omit=dev --ignore-scripts` lays it out in an empty folder (npm's
 * registry; nothing else installed there), and the number of packages in it.
 */
export async function installSize(spec: string): Promise<InstallSize> {
  const dir = mkdtempSync(join(tmpdir(), "native-clients-install-"));
  const started = performance.now();
  try {
    await run(
      "npm",
      [
        "install",
        "--prefix",
        dir,
        spec,
        "--omit=dev",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
      ],
      { timeout: 240_000 },
    );
    const modules = join(dir, "node_modules");
    const lock = JSON.parse(readFileSync(join(modules, ".package-lock.json"), "utf8")) as {
      packages: Record<string, unknown>;
    };
    const packages = Object.keys(lock.packages).filter((path) => path.startsWith("node_modules/")).length;
    const sizes = topLevelPackages(modules).map((name): [string, number] => [name, diskBytes(join(modules, name))]);
    sizes.sort((a, b) => b[1] - a[1]);
    return {
      spec,
      bytes: diskBytes(modules),
      packages,
      largest: sizes.slice(0, 5),
      seconds: (performance.now() - started) / 1000,
    };
  } catch (error) {
    return {
      spec,
      bytes: 0,
      packages: 0,
      largest: [],
      seconds: (performance.now() - started) / 1000,
      error: String(error).slice(0, 500),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function topLevelPackages(modules: string): string[] {
  return readdirSync(modules)
    .filter((name) => !name.startsWith("."))
    .flatMap((name) =>
      name.startsWith("@") ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : [name],
    );
}

/** Apparent size of the files under a path (what `du -sb` adds up), symbolic links not followed. */
function diskBytes(path: string): number {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.size;
  let total = stat.size;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isSymbolicLink()) continue;
    total += entry.isDirectory() ? diskBytes(child) : statSync(child).size;
  }
  return total;
}
