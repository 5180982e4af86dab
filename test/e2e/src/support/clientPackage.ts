import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "@platform/local-stack";

/*
 * The client as an integrator gets it: `npm pack` of libs/client, installed with npm into an empty
 * project outside the workspace (its dependencies from the npm registry), a script there compiled
 * with TypeScript in strict mode against the package's own declarations, then run.
 */

const CLIENT_DIR = join(repoRoot, "libs/client");
const TSC = join(repoRoot, "node_modules/.bin/tsc");

/** Packs the client into `dir`; the tarball's path. */
export function packClient(dir: string): string {
  const output = execFileSync("npm", ["pack", "--json", "--pack-destination", dir], {
    cwd: CLIENT_DIR,
    encoding: "utf8",
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
  const [packed] = JSON.parse(output) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return join(dir, packed!.filename);
}

/** The paths inside a tarball. */
export function tarballFiles(tarball: string): string[] {
  return execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean)
    .map((path) => path.replace(/^package\//, ""));
}

/**
 * An empty project in `dir` (no workspace above it: the caller picks a folder outside the
 * repository) with the tarball installed, and `script` as src/main.ts; compiled, not run.
 */
export function consumerProject(dir: string, tarball: string, script: string): void {
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "client-consumer", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`,
  );
  writeFileSync(
    join(dir, "tsconfig.json"),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2022", "DOM"],
          strict: true,
          // The package's declarations are checked too, as a consumer's compiler reads them.
          skipLibCheck: false,
          outDir: "dist",
          rootDir: "src",
          types: [],
        },
        include: ["src"],
      },
      null,
      2,
    )}\n`,
  );
  writeFileSync(join(dir, "src/main.ts"), script);
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", tarball], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
  execFileSync(TSC, ["-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
}

/** Runs the compiled script; its standard output. */
export function runConsumer(dir: string): string {
  return execFileSync(process.execPath, ["dist/main.js"], { cwd: dir, encoding: "utf8", timeout: 60_000 });
}

/** The installed package's files, as npm laid them out. */
export const installedFiles = (dir: string) =>
  readdirSync(join(dir, "node_modules/@chain-intents/client"), { recursive: true }).map(String);
