#!/usr/bin/env node
// Fails when the TypeScript sources import each other in a circle (issue 33): a cycle makes the
// load order decide which module sees the other's bindings still undefined, and it means two
// modules that should be one, or a third that both need. Only relative imports are followed:
// packages cannot import each other in a circle (tsc -b's project references refuse it).
//
// It also fails when two folders import each other, directly or through a third (issue 45): in
// every folder, from the tree's top down to each package's src, the files and subfolders it holds
// must import one another one way only, so they stand in layers and no import runs back up one.
// Here workspace packages (@platform/...) count as their folders too, and tests (*.test.ts) are
// left out: a test may use a helper of any layer.
//
// node scripts/import-cycles.mjs [root...]   (default: libs services deploy bench test)
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
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

const importedNames = (file) => ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles;

function importsOf(file) {
  const targets = [];
  for (const { fileName } of importedNames(file)) {
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

const circles = folderCircles();
for (const cycle of cycles)
  console.error(
    `import cycle: ${cycle
      .map((file) => relative(repo, file))
      .sort()
      .join(" <-> ")}`,
  );
for (const { folder, members, imports } of circles)
  console.error(
    `folders importing each other in ${relative(repo, folder) || "."}: ${members.join(" <-> ")}\n${imports
      .map((line) => `    ${line}`)
      .join("\n")}`,
  );
if (cycles.length > 0 || circles.length > 0) process.exit(1);
console.log(`no import cycles among ${files.length} files, and no two folders import each other`);

/** Every workspace package's folder by its name, so `@platform/x/...` imports count as arrows to that folder. */
function workspacePackages() {
  const packages = new Map();
  for (const group of ["libs", "services", "deploy"])
    for (const name of readdirSync(join(repo, group))) {
      const manifest = join(repo, group, name, "package.json");
      if (existsSync(manifest)) packages.set(JSON.parse(readFileSync(manifest, "utf8")).name, join(repo, group, name));
    }
  return packages;
}

/** The product files' imports (tests left out), relative ones to their file, workspace ones to the package's folder. */
function productImports() {
  const packages = workspacePackages();
  const arrows = [];
  for (const file of files) {
    if (file.endsWith(".test.ts")) continue;
    for (const target of graph.get(file)) arrows.push([file, target]);
    for (const { fileName } of importedNames(file)) {
      const name = /^@platform\/[^/]+/.exec(fileName)?.[0];
      const folder = name === undefined ? undefined : packages.get(name);
      if (folder !== undefined) arrows.push([file, join(folder, "package.json")]);
    }
  }
  return arrows;
}

/**
 * In every folder that holds both ends of an import, the children (files and subfolders) that
 * import each other, directly or through others: the strongly connected components of the
 * children's import graph, with the imports that tie them.
 */
function folderCircles() {
  const byFolder = new Map();
  for (const [from, to] of productImports()) {
    let folder = dirname(from);
    while (folder !== repo && !to.startsWith(folder + sep)) folder = dirname(folder);
    const child = (path) => relative(folder, path).split(sep)[0];
    const [a, b] = [child(from), child(to)];
    if (a === b) continue;
    if (!byFolder.has(folder)) byFolder.set(folder, []);
    byFolder.get(folder).push({ a, b, line: `${relative(repo, from)} -> ${relative(repo, to)}` });
  }
  const found = [];
  for (const [folder, arrows] of byFolder) {
    const next = new Map();
    for (const { a, b } of arrows) next.set(a, new Set([...(next.get(a) ?? []), b]));
    for (const members of stronglyConnected(next)) {
      const inside = new Set(members);
      const imports = [...new Set(arrows.filter(({ a, b }) => inside.has(a) && inside.has(b)).map(({ line }) => line))];
      found.push({ folder, members: members.sort(), imports: imports.sort() });
    }
  }
  return found;
}

/** The components of more than one node of a small graph (node -> set of nodes). */
function stronglyConnected(next) {
  const reach = (start) => {
    const seen = new Set([start]);
    const todo = [start];
    while (todo.length > 0)
      for (const node of next.get(todo.pop()) ?? []) if (!seen.has(node) && seen.add(node)) todo.push(node);
    return seen;
  };
  const reached = new Map([...next.keys()].map((node) => [node, reach(node)]));
  const components = new Map();
  for (const [node, seen] of reached) {
    const members = [...seen].filter((other) => reached.get(other)?.has(node));
    if (members.length > 1) components.set(members.sort().join("\0"), members);
  }
  return [...components.values()];
}
