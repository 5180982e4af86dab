import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadTcVersions, parseTcVersions } from "./tcVersions.js";

const dir = mkdtempSync(join(tmpdir(), "tc-versions-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("TC_VERSIONS_FILE", () => {
  it("maps versions to their documents", () => {
    const versions = parseTcVersions(
      JSON.stringify({ "1": { documentUrl: "https://example.com/v1", documentSha256: "AB".repeat(32) } }),
    );
    expect(versions.get(1)).toEqual({ documentUrl: "https://example.com/v1", documentSha256: "ab".repeat(32) });
    expect(versions.get(2)).toBeUndefined();
  });

  it.each<[string, string, RegExp]>([
    ["not JSON", "{", /not JSON/],
    [
      "a version that is not a positive integer",
      JSON.stringify({ v1: { documentUrl: "https://e.x/1", documentSha256: "a".repeat(64) } }),
      /v1: is not a T&C version/,
    ],
    [
      "a short hash",
      JSON.stringify({ "1": { documentUrl: "https://e.x/1", documentSha256: "abc" } }),
      /1\.documentSha256: must be 64 hex/,
    ],
    [
      "a non-http URL",
      JSON.stringify({ "1": { documentUrl: "ftp://e.x/1", documentSha256: "a".repeat(64) } }),
      /1\.documentUrl/,
    ],
    [
      "an unknown key",
      JSON.stringify({ "1": { documentUrl: "https://e.x/1", documentSha256: "a".repeat(64), extra: 1 } }),
      /1/,
    ],
  ])("refuses %s", (_, text, problem) => {
    expect(() => parseTcVersions(text)).toThrow(problem);
  });

  it("is empty when no file is configured and names an unreadable file", async () => {
    expect((await loadTcVersions(undefined)).size).toBe(0);
    await expect(loadTcVersions(join(dir, "missing.json"))).rejects.toThrow(/missing\.json cannot be read \(ENOENT\)/);
    const file = join(dir, "versions.json");
    writeFileSync(file, JSON.stringify({ "2": { documentUrl: "https://e.x/2", documentSha256: "c".repeat(64) } }));
    expect((await loadTcVersions(file)).get(2)?.documentUrl).toBe("https://e.x/2");
  });
});
