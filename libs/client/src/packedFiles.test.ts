import { execFileSync } from "node:child_process";
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
});
