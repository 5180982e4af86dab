import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import type { Manifest } from "./manifests.js";
import { OVERLAYS_DIR, type OverlayName } from "./paths.js";

const run = promisify(execFile);

/** The kubectl that renders (its built-in kustomize needs no cluster). */
export const KUBECTL = process.env.KUBECTL ?? "kubectl";

/** Renders a kustomization directory with `kubectl kustomize`, offline. */
export async function renderKustomization(dir: string): Promise<string> {
  try {
    const { stdout } = await run(KUBECTL, ["kustomize", dir], { maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === "ENOENT")
      throw new Error(
        `${KUBECTL} not found: kubectl (1.27 or newer, with built-in kustomize) is needed to render ${dir}`,
      );
    throw new Error(`kubectl kustomize ${dir} failed: ${failure.stderr?.trim() || failure.message}`);
  }
}

/** Parses a multi-document YAML stream; any syntax error fails loudly. */
export function parseManifests(text: string): Manifest[] {
  const manifests: Manifest[] = [];
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0)
      throw new Error(`invalid YAML: ${document.errors.map((error) => error.message).join("; ")}`);
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    manifests.push(value as Manifest);
  }
  return manifests;
}

export async function renderOverlay(name: OverlayName): Promise<Manifest[]> {
  return parseManifests(await renderKustomization(join(OVERLAYS_DIR, name)));
}
