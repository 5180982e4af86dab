import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
/** The CLI's state folder: descriptor, logs and server data. Ignored by git. */
export const defaultStateDir = join(repoRoot, ".local");
export const localChainsTemplate = join(repoRoot, "deploy", "config", "local", "chains.json");
