import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh folder for one test's servers and logs; `remove` deletes it. */
export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `platform-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
