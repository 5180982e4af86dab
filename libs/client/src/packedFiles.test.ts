import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * What the tarball holds (`npm pack`): the build, the sources its source maps name, the document
 * and the docs; nothing only the workspace uses (tests, test helpers, `againstStack.ts`, which
 * imports vitest). Scripts are skipped: `prepack` builds, which the test run has done already.
 */
describe("the client's tarball", () => {
  it("holds only the public files", () => {
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
        cwd: fileURLToPath(new URL("..", import.meta.url)),
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }),
    ) as { files: { path: string }[] }[];
    const paths = packed[0]!.files.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining(["package.json", "README.md", "openapi.json", "dist/index.js", "dist/index.d.ts"]),
    );
    const workspaceOnly = paths.filter(
      (path) =>
        /\.test\.(ts|js|d\.ts)$/.test(path) ||
        /(^|\/)testing\//.test(path) ||
        /againstStack/.test(path) ||
        path.endsWith(".tsbuildinfo"),
    );
    expect(workspaceOnly).toEqual([]);
    expect(
      paths.every((path) => /^(dist|src)\/|^[A-Za-z.]+\.(json|md)$/.test(path)),
      paths.join(", "),
    ).toBe(true);
  }, 60_000);

  it("is packed outside the workspace too: its prepack build needs nothing above the package", () => {
    const packageDir = fileURLToPath(new URL("..", import.meta.url));
    const outside = mkdtempSync(join(tmpdir(), "client-pack-"));
    try {
      for (const entry of ["package.json", "tsconfig.json", "src", "openapi.json", "README.md", "CHANGELOG.md"])
        cpSync(join(packageDir, entry), join(outside, entry), { recursive: true });
      // Its own dependencies only (TypeScript among them), as an install of the package would give it.
      symlinkSync(join(packageDir, "node_modules"), join(outside, "node_modules"), "dir");
      const packed = JSON.parse(
        execFileSync("npm", ["pack", "--dry-run", "--json"], {
          cwd: outside,
          encoding: "utf8",
          stdio: ["ignore", "pipe", "pipe"],
        }),
      ) as { files: { path: string }[] }[];
      expect(existsSync(join(outside, "dist", "index.js"))).toBe(true);
      expect(packed[0]!.files.map((file) => file.path)).toEqual(
        expect.arrayContaining(["dist/index.js", "dist/index.d.ts", "openapi.json"]),
      );
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  }, 120_000);
});
