import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/*
 * The README is a guide, not a lab notebook: it stays small enough to read, opens with the two
 * commands everyone runs (`.ci/run` runs the second), and its links lead somewhere. Dated runs
 * belong in bench/HISTORY.md, so bench/data/README.md says how to run the benches, not when.
 */
const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const README_MAX_BYTES = 30 * 1024;
const LINE_MAX_CHARACTERS = 400;
const QUICK_START_COMMANDS = ["deploy/local/stack up", "scripts/test"];
const ISO_DATE = /\b20\d\d-\d\d-\d\d\b/;
const DAY_MONTH = /\b\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b/;
/** How the bench diary dates its runs and names its work. */
const DATED = new RegExp(`${ISO_DATE.source}|${DAY_MONTH.source}|\\bissue \\d|\\bsession \\d`);

const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");

/** Fenced blocks of a Markdown text, each as its lines without the fences. */
function fencedBlocks(text: string): string[][] {
  const blocks: string[][] = [];
  let open: string[] | undefined;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) {
      if (open === undefined) open = [];
      else {
        blocks.push(open);
        open = undefined;
      }
    } else open?.push(line);
  }
  return blocks;
}

/** The text of the `## ` section whose heading is `heading`, up to the next `## `. */
function section(text: string, heading: string): string {
  const lines = text.split("\n");
  const start = lines.indexOf(`## ${heading}`);
  if (start < 0) return "";
  const end = lines.findIndex((line, index) => index > start && line.startsWith("## "));
  return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const match of markdown.matchAll(/^#{1,6} (.+)$/gm)) anchors.add(anchorOf(match[1]!));
  return anchors;
}

/** Relative links of a Markdown file (code blocks and code spans left out) that lead nowhere. */
function brokenLinks(path: string): string[] {
  const text = read(path)
    .replace(/^```[\s\S]*?^```/gm, "")
    .replace(/`[^`\n]*`/g, "");
  const broken: string[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [file, anchor] = target.split("#") as [string, string | undefined];
    const resolved = file === "" ? join(REPO_ROOT, path) : join(REPO_ROOT, dirname(path), file);
    if (!existsSync(resolved)) {
      broken.push(`${target} (no ${relative(REPO_ROOT, resolved)})`);
      continue;
    }
    if (anchor !== undefined && resolved.endsWith(".md") && statSync(resolved).isFile()) {
      if (!anchorsOf(readFileSync(resolved, "utf8")).has(anchor)) broken.push(`${target} (no heading #${anchor})`);
    }
  }
  return broken;
}

describe("README.md is a guide", () => {
  const readme = read("README.md");

  it(`is at most ${README_MAX_BYTES} bytes, with no line over ${LINE_MAX_CHARACTERS} characters`, () => {
    expect(Buffer.byteLength(readme, "utf8")).toBeLessThanOrEqual(README_MAX_BYTES);
    const long = readme
      .split("\n")
      .map((line, index) => ({ line: index + 1, characters: [...line].length }))
      .filter((entry) => entry.characters > LINE_MAX_CHARACTERS);
    expect(long).toEqual([]);
  });

  it("opens with Quick start: exactly two fenced commands, the stack's and the tests', which .ci/run runs", () => {
    const headings = readme.split("\n").filter((line) => line.startsWith("#"));
    expect(headings[0]).toMatch(/^# \S/);
    expect(headings[1]).toBe("## Quick start");
    const beforeQuickStart = readme.slice(readme.indexOf("\n"), readme.indexOf("## Quick start"));
    expect(beforeQuickStart.trim()).toBe("");

    const blocks = fencedBlocks(section(readme, "Quick start")).map((lines) => lines.filter((line) => line.trim()));
    expect(blocks).toEqual(QUICK_START_COMMANDS.map((command) => [command]));
    expect(read(".ci/run")).toMatch(/^exec \.\/scripts\/test$/m);
  });

  it("names a command for every measured Capacity and Performance figure", () => {
    for (const heading of ["Capacity", "Performance"]) {
      // The section's first table holds the measured figures (Capacity's sizing table is derived).
      const lines = section(readme, heading).split("\n");
      const start = lines.findIndex((line) => line.startsWith("|"));
      const end = lines.findIndex((line, index) => index > start && !line.startsWith("|"));
      const rows = lines.slice(start, end < 0 ? undefined : end).filter((line) => !/^\|[-| ]+\|$/.test(line));
      const [header, ...figures] = rows;
      expect(header, `## ${heading} has a table`).toMatch(/\| Command \|$/);
      expect(figures.length).toBeGreaterThan(3);
      for (const row of figures) expect(row, row).toMatch(/\| [^|]*`[^`|]+`[^|]*\|$|\| the same \|$/);
    }
  });

  it("leaves dates, commits and issue numbers to bench/HISTORY.md", () => {
    expect(readme.split("\n").filter((line) => DATED.test(line))).toEqual([]);
  });

  it("links only to files (and headings) that exist", () => {
    expect(brokenLinks("README.md")).toEqual([]);
  });
});

describe("the docs the README leads to", () => {
  it("link only to files (and headings) that exist", () => {
    const docs = readdirSync(join(REPO_ROOT, "docs")).filter((name) => name.endsWith(".md"));
    expect(docs.length).toBeGreaterThan(0);
    expect(["bench/data/README.md", ...docs.map((name) => `docs/${name}`)].flatMap(brokenLinks)).toEqual([]);
  });

  it("bench/data/README.md says how to run the benches, not when: no dates (the runs are in bench/HISTORY.md)", () => {
    const text = read("bench/data/README.md");
    const lines = text.split("\n");
    expect(lines.filter((line) => ISO_DATE.test(line) || DAY_MONTH.test(line))).toEqual([]);
    expect(lines.filter((line) => line.startsWith("#") && /\b20\d\d\b/.test(line))).toEqual([]);
  });
});
