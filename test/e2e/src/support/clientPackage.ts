import { execFile, execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "@platform/local-stack";

/*
 * The client as an integrator gets it: `npm pack` of libs/client, installed with npm into an empty
 * project outside the workspace (its dependencies from the npm registry). Scripts there are compiled
 * with TypeScript in strict mode against the package's own declarations, then run; the browser test
 * bundles its page from the same install.
 */

const CLIENT_DIR = join(repoRoot, "libs/client");
const TSC = join(repoRoot, "node_modules/.bin/tsc");
const execFileAsync = promisify(execFile);
const npmEnv = () => ({ ...process.env, npm_config_update_notifier: "false" });

/** Packs the client into `dir`; the tarball's path. */
export function packClient(dir: string): string {
  const output = execFileSync("npm", ["pack", "--json", "--pack-destination", dir], {
    cwd: CLIENT_DIR,
    encoding: "utf8",
    env: npmEnv(),
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

/** The tarball and the project (outside the workspace) it is installed in. */
export interface InstalledClient {
  tarball: string;
  /** An npm project with the tarball installed: `node_modules/@chain-intents/client` is the package as npm laid it out. */
  project: string;
  /** The installed package's folder. */
  packageDir: string;
}

/** Folders of installs: one per content of the client, the newest kept. */
const INSTALLS = join(tmpdir(), "platform-client-installs");
/** How long a waiting test file gives the one that packs: tsc -b of the client and an npm install. */
const INSTALL_WAIT_MS = 300_000;

let installed: Promise<InstalledClient> | undefined;

/**
 * The client packed and installed once and shared: by every test of this process, and across the
 * e2e workers (files run in separate processes) through a folder keyed by the client's contents,
 * which the first to ask creates under a lock while the others wait for it. An edit of the client
 * gives a new key, so a stale install is never used; older ones are removed.
 *
 * `@types/node` is installed beside it, as an integrator's Node project has it (the README's
 * quickstart reads its environment and a file).
 */
export function installedClient(): Promise<InstalledClient> {
  installed ??= installShared();
  return installed;
}

async function installShared(): Promise<InstalledClient> {
  const key = clientContentKey();
  const dir = join(INSTALLS, key);
  const result = (): InstalledClient => {
    const tarball = readdirSync(dir).find((name) => name.endsWith(".tgz"));
    const project = join(dir, "project");
    return { tarball: join(dir, tarball!), project, packageDir: join(project, "node_modules/@chain-intents/client") };
  };
  mkdirSync(INSTALLS, { recursive: true });
  const lock = `${dir}.lock`;
  const deadline = Date.now() + INSTALL_WAIT_MS;
  while (!existsSync(dir)) {
    if (takeLock(lock)) {
      try {
        if (!existsSync(dir)) build(dir);
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
      break;
    }
    if (Date.now() > deadline)
      throw new Error(`the client's install at ${dir} did not appear within ${INSTALL_WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  removeOlderInstalls(key);
  return result();
}

/** mkdir is atomic: whoever creates the lock builds. A lock left by a process that died is taken over. */
function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const age = Date.now() - statSync(lock, { throwIfNoEntry: false })!.mtimeMs;
    if (age > INSTALL_WAIT_MS) rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

/** Packs and installs into a folder of its own, then renames it into place: a reader never sees half an install. */
function build(dir: string): void {
  const building = `${dir}.building-${process.pid}-${randomBytes(4).toString("hex")}`;
  const project = join(building, "project");
  mkdirSync(project, { recursive: true });
  try {
    const tarball = packClient(building);
    writeFileSync(
      join(project, "package.json"),
      `${JSON.stringify({ name: "client-consumer", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`,
    );
    execFileSync(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        tarball,
        `@types/node@^${process.versions.node.split(".")[0]}`,
      ],
      { cwd: project, encoding: "utf8", env: npmEnv() },
    );
    renameSync(building, dir);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    throw error;
  }
}

function removeOlderInstalls(key: string): void {
  for (const name of readdirSync(INSTALLS)) {
    if (name === key || name.startsWith(`${key}.`) || name.endsWith(".lock")) continue;
    const path = join(INSTALLS, name);
    // Another process may still use an install of an older content for a moment; an hour is plenty.
    if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
  }
}

/** A digest of everything the pack is made from (the manifest, the sources, the document, the docs). */
function clientContentKey(): string {
  const hash = createHash("sha256");
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      // Tests are not packed (package.json "files"): editing one changes nothing installed.
      else if (!entry.name.endsWith(".test.ts"))
        hash.update(relative(CLIENT_DIR, path)).update("\0").update(readFileSync(path)).update("\0");
    }
  };
  for (const file of ["package.json", "tsconfig.json", "openapi.json", "README.md", "CHANGELOG.md"])
    hash
      .update(file)
      .update("\0")
      .update(readFileSync(join(CLIENT_DIR, file)))
      .update("\0");
  visit(join(CLIENT_DIR, "src"));
  return hash.digest("hex").slice(0, 20);
}

/**
 * A script compiled against the installed package, in a folder of its own inside the install
 * (`tsc --strict`, the package's declarations checked too): the folder, for runConsumer.
 * `types` lists the `@types` packages the script may use (none: the package's own only);
 * `checkDeclarations: false` checks the script alone (skipLibCheck), much faster with viem's.
 */
export function compileConsumer(
  client: InstalledClient,
  script: string,
  options: { types?: string[]; checkDeclarations?: boolean } = {},
): string {
  const dir = join(client.project, "scripts", randomBytes(6).toString("hex"));
  mkdirSync(join(dir, "src"), { recursive: true });
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
          skipLibCheck: options.checkDeclarations === false,
          outDir: "dist",
          rootDir: "src",
          types: options.types ?? [],
        },
        include: ["src"],
      },
      null,
      2,
    )}\n`,
  );
  writeFileSync(join(dir, "src/main.ts"), script);
  try {
    execFileSync(TSC, ["-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
  } catch (error) {
    // tsc prints its diagnostics on stdout.
    throw new Error(`the script does not compile:\n${(error as { stdout?: string }).stdout ?? String(error)}`);
  }
  return dir;
}

/**
 * Runs the compiled script; its standard output. Without blocking this process's event loop: a
 * stack started by the test pipes its processes' output through it.
 */
export async function runConsumer(dir: string, env: Record<string, string> = {}, timeout = 60_000): Promise<string> {
  try {
    const { stdout } = await execFileAsync(process.execPath, ["dist/main.js"], {
      cwd: dir,
      encoding: "utf8",
      timeout,
      env: { ...process.env, ...env },
    });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`the script failed: ${(error as Error).message}\nstdout: ${stdout}\nstderr: ${stderr}`);
  }
}

/** The installed package's files, as npm laid them out. */
export const installedFiles = (client: InstalledClient) =>
  readdirSync(client.packageDir, { recursive: true }).map(String);
