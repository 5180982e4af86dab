import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const buf = join(repoRoot, "node_modules", ".bin", "buf");

// buf's breaking-change check (FILE rules) of the working tree against the last commit: a
// developer who renumbers or retypes a field sees it fail before committing. The second case
// proves the check bites, on a scratch module, so the guard itself cannot silently stop working.
describe("buf breaking", () => {
  it("finds no breaking change against the last commit", async () => {
    await expect(run(buf, ["breaking", "--against", ".git#ref=HEAD"], { cwd: repoRoot })).resolves.toBeDefined();
  }, 60_000);

  it("reports a changed field type", async () => {
    const dir = mkdtempSync(join(tmpdir(), "buf-breaking-"));
    try {
      const before = join(dir, "before");
      const after = join(dir, "after");
      for (const [folder, type] of [
        [before, "string"],
        [after, "uint64"],
      ] as const) {
        mkdirSync(join(folder, "x", "v1"), { recursive: true });
        writeFileSync(join(folder, "buf.yaml"), "version: v2\nbreaking:\n  use: [FILE]\n");
        writeFileSync(
          join(folder, "x", "v1", "x.proto"),
          `syntax = "proto3";\npackage x.v1;\nmessage M { ${type} amount = 1; }\n`,
        );
      }
      const failure = await run(buf, ["breaking", after, "--against", before], { cwd: dir }).then(
        () => undefined,
        (error: unknown) => error as { stdout: string; code: number },
      );
      expect(failure?.code).not.toBe(0);
      expect(failure?.stdout).toMatch(/changed type/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
