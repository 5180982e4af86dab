import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * Finds a server binary: an explicit override variable first, then PATH, then the sbin folders
 * Debian installs daemons into (which a non-root PATH often lacks).
 */
export function findBinary(name: string, overrideVariable: string): string {
  const override = process.env[overrideVariable];
  if (override) return override;
  const folders = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/usr/bin", "/sbin", "/usr/local/bin"];
  for (const folder of folders) {
    if (!folder) continue;
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  throw new Error(
    `${name} was not found on PATH or in /usr/sbin; run deploy/local/install-deps.sh (or set ${overrideVariable})`,
  );
}
