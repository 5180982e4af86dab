import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Imports a package that is not a dependency of bench but of one of its dependencies, as that
 * dependency itself would (pnpm links only direct dependencies into bench/node_modules):
 * `importDependencyOf(["polkadot-api", "@polkadot-api/metadata-builders"])` resolves polkadot-api
 * from here, then metadata-builders from polkadot-api's own location, and imports its ESM entry
 * (the same module instance the parent loads). The caller states the shape it uses: these
 * packages' own types are not reachable from bench either.
 */
export async function importDependencyOf<T>(chain: DependencyChain): Promise<T> {
  const root = dependencyRoot(chain);
  return (await import(pathToFileURL(join(root, esmEntry(root))).href)) as T;
}

/** The version of the package `importDependencyOf(chain)` imports. */
export function dependencyVersion(chain: DependencyChain): string {
  return (JSON.parse(readFileSync(join(dependencyRoot(chain), "package.json"), "utf8")) as { version: string }).version;
}

export type DependencyChain = readonly [string, ...string[]];

function dependencyRoot(chain: DependencyChain): string {
  let from = import.meta.url;
  let root = "";
  for (const name of chain) {
    root = packageRoot(createRequire(from).resolve(name), name);
    from = pathToFileURL(join(root, "package.json")).href;
  }
  return root;
}

/** The directory of `name`'s package.json above one of its files. */
function packageRoot(file: string, name: string): string {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === name)
      return dir;
  }
  throw new Error(`no package.json of ${name} above ${file}`);
}

type ExportTarget = string | { [condition: string]: ExportTarget | undefined };

/** The file node's ESM loader picks for the package root ("import", then "default"), as in node's resolver. */
function esmEntry(root: string): string {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    exports?: ExportTarget | Record<string, ExportTarget>;
    module?: string;
    main?: string;
  };
  const dot =
    typeof manifest.exports === "object" && "." in manifest.exports ? manifest.exports["."] : manifest.exports;
  const pick = (target: ExportTarget | undefined): string | undefined => {
    if (target === undefined || typeof target === "string") return target;
    for (const condition of ["node", "import", "default"]) {
      const found = pick(target[condition]);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const entry = pick(dot) ?? manifest.module ?? manifest.main;
  if (entry === undefined) throw new Error(`${root}: no ESM entry in package.json`);
  return entry;
}
