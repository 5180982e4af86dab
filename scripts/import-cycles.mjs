#!/usr/bin/env node
// Fails when the TypeScript sources import each other in a circle (issue 33): a cycle makes the
// load order decide which module sees the other's bindings still undefined, and it means two
// modules that should be one, or a third that both need. Only relative imports are followed:
// packages cannot import each other in a circle (tsc -b's project references refuse it).
//
// node scripts/import-cycles.mjs [root...]   (default: libs services deploy bench test)
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const repo = resolve(dirname(new URL(import.meta.url).pathname), "..");
const roots =
  process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["libs", "services", "deploy", "bench", "test"];
const SKIP = new Set(["node_modules", "dist", ".git", ".local", "generated", "gen"]);

function sourcesUnder(directory) {
  const found = [];
  for (const name of readdirSync(directory)) {
    if (SKIP.has(name)) continue;
    const path = join(directory, name);
    if (statSync(path).isDirectory()) found.push(...sourcesUnder(path));
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith(".d.ts")) found.push(path);
  }
  return found;
}

function importsOf(file) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  const targets = [];
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith(".")) continue;
    const base = resolve(dirname(file), fileName);
    const candidates = [
      base.replace(/\.js$/, ".ts"),
      base.replace(/\.mjs$/, ".mts"),
      `${base}.ts`,
      join(base, "index.ts"),
    ];
    const target = candidates.find((candidate) => graph.has(candidate));
    if (target !== undefined) targets.push(target);
  }
  return targets;
}

const files = roots.flatMap((root) => sourcesUnder(join(repo, root)));
const graph = new Map(files.map((file) => [file, []]));
for (const file of files) graph.set(file, importsOf(file));

// Tarjan's strongly connected components: each component of more than one file is a cycle.
let index = 0;
const indexOf = new Map();
const lowOf = new Map();
const stack = [];
const onStack = new Set();
const cycles = [];
function visit(file) {
  indexOf.set(file, index);
  lowOf.set(file, index);
  index += 1;
  stack.push(file);
  onStack.add(file);
  for (const target of graph.get(file)) {
    if (!indexOf.has(target)) {
      visit(target);
      lowOf.set(file, Math.min(lowOf.get(file), lowOf.get(target)));
    } else if (onStack.has(target)) lowOf.set(file, Math.min(lowOf.get(file), indexOf.get(target)));
  }
  if (lowOf.get(file) !== indexOf.get(file)) return;
  const component = [];
  let member;
  do {
    member = stack.pop();
    onStack.delete(member);
    component.push(member);
  } while (member !== file);
  if (component.length > 1 || graph.get(file).includes(file)) cycles.push(component);
}
for (const file of files) if (!indexOf.has(file)) visit(file);

if (cycles.length === 0) {
  console.log(`no import cycles among ${files.length} files`);
  process.exit(0);
}
for (const cycle of cycles)
  console.error(
    `import cycle: ${cycle
      .map((file) => relative(repo, file))
      .sort()
      .join(" <-> ")}`,
  );
process.exit(1);
