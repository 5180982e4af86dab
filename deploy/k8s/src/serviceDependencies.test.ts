import { execFileSync } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join, sep } from "node:path";
import { describe, expect, test } from "vitest";
import { SERVICES } from "./deployables.js";
import { REPO_ROOT } from "./paths.js";

/*
 * What a service image holds is its production dependency closure (the Dockerfile's `pnpm deploy
 * --prod`). The devnet (Solidity sources, solc, the local chains' deployment) is for tests and the
 * local stack only: the contract ABIs and the order codec the services need live in libs/settler.
 */

interface ListedPackage {
  dependencies?: Record<string, ListedPackage>;
}

/** Every package name in the production closure of `service`, as pnpm resolves it. */
function productionClosure(service: string): Set<string> {
  const output = execFileSync(
    "pnpm",
    ["--filter", `@platform/${service}`, "list", "--prod", "--depth", "Infinity", "--json"],
    { cwd: REPO_ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  const names = new Set<string>();
  const walk = (dependencies: Record<string, ListedPackage> | undefined) => {
    for (const [name, listed] of Object.entries(dependencies ?? {})) {
      if (names.has(name)) continue;
      names.add(name);
      walk(listed.dependencies);
    }
  };
  for (const root of JSON.parse(output) as ListedPackage[]) walk(root.dependencies);
  return names;
}

/** The service's source files that are not tests or test harnesses. */
async function productionSources(service: string): Promise<string[]> {
  const root = join(REPO_ROOT, "services", service, "src");
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter(
      (entry) =>
        entry.isFile() &&
        entry.name.endsWith(".ts") &&
        !entry.name.endsWith(".test.ts") &&
        // Test support lives in testSupport/ folders, which no build includes.
        !entry.parentPath.split(sep).includes("testSupport"),
    )
    .map((entry) => join(entry.parentPath, entry.name));
}

describe("service images", () => {
  test.each(SERVICES)("%s: no production dependency on the devnet or the Solidity compiler", (service) => {
    const closure = productionClosure(service);
    expect(closure.size).toBeGreaterThan(0);
    expect([...closure].filter((name) => name === "@platform/devnet" || name === "solc")).toEqual([]);
  });

  test.each(SERVICES)("%s: no source file outside the tests imports the devnet", async (service) => {
    const importing: string[] = [];
    for (const file of await productionSources(service)) {
      if (/from\s+["']@platform\/devnet(\/[^"']*)?["']/.test(await readFile(file, "utf8")))
        importing.push(file.slice(REPO_ROOT.length + 1));
    }
    expect(importing).toEqual([]);
  });

  test("the check bites: the devnet itself depends on solc", () => {
    const output = execFileSync("pnpm", ["--filter", "@platform/devnet", "list", "--prod", "--json"], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    });
    expect(Object.keys((JSON.parse(output) as ListedPackage[])[0]!.dependencies ?? {})).toContain("solc");
  });
});
