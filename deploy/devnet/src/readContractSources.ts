import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";

/**
 * Reads every `.sol` file under `dir`, keyed by its path relative to `dir` (with `/`), in sorted order.
 * Relative keys keep the compiler input independent of where the repository is checked out, and the
 * sorted order keeps it independent of the file system's listing order; both make builds reproducible.
 */
export async function readContractSources(dir: string): Promise<Record<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".sol"))
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .sort();
  const sources: Record<string, string> = {};
  for (const file of files) sources[file] = await readFile(join(dir, file), "utf8");
  return sources;
}
