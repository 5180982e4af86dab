import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface RuntimeFootprint {
  /** The modules imported, as the bench imports them. */
  imports: string[];
  /** Distinct JS files node loaded (ESM and CommonJS), their bytes, and the packages they belong to. */
  files: number;
  bytes: number;
  packages: number;
  /** Wall time of the imports in a fresh node process (module loading and evaluation). */
  importMs: number;
  error?: string;
}

/** Records every file: URL node's ESM loader loads (CommonJS required from CommonJS is read from require.cache). */
const HOOKS = `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  if (url.startsWith("file:")) appendFileSync(process.env.NATIVE_CLIENTS_LOADED, url + "\\n");
  return next(url, context);
}`;

/**
 * What a client costs at run time rather than on disk: a fresh node process (in bench/, so it
 * resolves as the bench does) imports the client's modules; the files loaded are summed. The
 * install size counts code generators and CLIs these packages depend on but never load.
 */
export async function runtimeFootprint(imports: string[]): Promise<RuntimeFootprint> {
  const dir = mkdtempSync(join(tmpdir(), "native-clients-footprint-"));
  try {
    writeFileSync(join(dir, "hooks.mjs"), HOOKS);
    writeFileSync(
      join(dir, "register.mjs"),
      `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});\n`,
    );
    const loaded = join(dir, "loaded.txt");
    writeFileSync(loaded, "");
    const script = [
      'import { createRequire } from "node:module";',
      "const started = performance.now();",
      ...imports.map((specifier) => `await import(${JSON.stringify(specifier)});`),
      "const ms = performance.now() - started;",
      "console.log(JSON.stringify({ ms, cjs: Object.keys(createRequire(import.meta.url).cache) }));",
    ].join("\n");
    const node = async (hooked: boolean) => {
      const { stdout } = await run(
        process.execPath,
        [
          ...(hooked ? ["--import", pathToFileURL(join(dir, "register.mjs")).href] : []),
          "--input-type=module",
          "-e",
          script,
        ],
        {
          cwd: fileURLToPath(new URL("..", import.meta.url)),
          env: { ...process.env, NATIVE_CLIENTS_LOADED: loaded },
          timeout: 60_000,
        },
      );
      return JSON.parse(stdout.trim().split("\n").at(-1) as string) as { ms: number; cjs: string[] };
    };
    const answer = await node(true);
    // The import time from a second process without the recording hook.
    const { ms } = await node(false);
    const files = new Set([
      ...readFileSync(loaded, "utf8")
        .split("\n")
        .filter((url) => url !== "")
        .map((url) => fileURLToPath(url)),
      ...answer.cjs,
    ]);
    const packages = new Set([...files].map(packageOf));
    const bytes = [...files].reduce((sum, file) => sum + (statSync(file, { throwIfNoEntry: false })?.size ?? 0), 0);
    return { imports, files: files.size, bytes, packages: packages.size, importMs: ms };
  } catch (error) {
    return { imports, files: 0, bytes: 0, packages: 0, importMs: 0, error: String(error).slice(0, 300) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `…/node_modules/@scope/name/…` → `@scope/name` (the last node_modules segment). */
function packageOf(file: string): string {
  const parts = file.split("/node_modules/").at(-1)?.split("/") ?? [];
  return parts[0]?.startsWith("@") === true ? `${parts[0]}/${parts[1]}` : (parts[0] ?? file);
}
