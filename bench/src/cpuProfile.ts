// Summarising V8 CPU profiles (`--cpu-prof`) for a terminal, shared by the benchmarks' profile
// summarisers: where a process spent its busy samples by area (each bench names its own areas by
// where the code lives), by function (self time), and optionally the inclusive time of named steps.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { table } from "./load.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummaryOptions {
  /** Areas by where the code lives; the first match wins. Name one "module loading (startup)" to leave start-up out. */
  areas: Array<[string, RegExp]>;
  /** How many functions to list by self time. */
  functions: number;
  /** Steps whose inclusive time is shown: [label, function name ("" = any function of the file), file pattern]. */
  steps?: Array<[string, string, RegExp]>;
}

export function summariseProfile(file: string, options: ProfileSummaryOptions): string {
  const steps = options.steps ?? [];
  const areaOf = (node: ProfileNode): string => {
    const { url, functionName } = node.callFrame;
    if (url === "") {
      if (functionName === "(garbage collector)") return "garbage collection";
      if (functionName === "(idle)" || functionName === "(program)") return functionName;
      if (/^(stringify|parse)$/.test(functionName)) return "JSON (native)";
      return "native / builtins";
    }
    return options.areas.find(([, pattern]) => pattern.test(url))?.[0] ?? "other JS";
  };
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, index) =>
    selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1_000),
  );
  // Idle time and the process's start (loading its modules) are not the load's.
  const startup = (node: ProfileNode) =>
    areaOf(node) === "module loading (startup)" ||
    /^(openFileHandle|realpathSync|readFileUtf8|internalModuleStat)$/.test(node.callFrame.functionName);
  const busy = [...selfMs].filter(
    ([id]) => !/^\((idle|program)\)$/.test(byId.get(id)!.callFrame.functionName) && !startup(byId.get(id)!),
  );
  const total = busy.reduce((sum, [, ms]) => sum + ms, 0);
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, ms] of busy) {
    const node = byId.get(id)!;
    areas.set(areaOf(node), (areas.get(areaOf(node)) ?? 0) + ms);
    const where =
      node.callFrame.url === ""
        ? ""
        : ` ${node.callFrame.url.replace(/^.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, "").replace(/^file:\/\/.*?\/(services|libs)\//, "$1/")}:${node.callFrame.lineNumber + 1}`;
    const name = `${node.callFrame.functionName || "(anonymous)"}${where}`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
    // Each step counted once per sample, however deep it recurses.
    const seen = new Set<string>();
    for (let at: number | undefined = steps.length === 0 ? undefined : id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      for (const [step, functionName, url] of steps) {
        if (seen.has(step) || !url.test(frame.url)) continue;
        if (functionName !== "" && frame.functionName !== functionName) continue;
        seen.add(step);
        inclusive.set(step, (inclusive.get(step) ?? 0) + ms);
      }
    }
  }
  const share = (ms: number) => `${((100 * ms) / total).toFixed(1)}%`;
  const top = (entries: Map<string, number>, count: number) => [...entries].sort((a, b) => b[1] - a[1]).slice(0, count);
  return [
    `${basename(file)}: ${total.toFixed(0)} ms busy (idle and module loading left out)`,
    table(top(areas, 20).map(([area, ms]) => ({ area, ms: ms.toFixed(0), share: share(ms) }))),
    "",
    table(
      top(functions, options.functions).map(([fn, ms]) => ({
        "function (self time)": fn.slice(0, 120),
        ms: ms.toFixed(0),
        share: share(ms),
      })),
    ),
    ...(steps.length === 0
      ? []
      : [
          "",
          table(
            steps
              .filter(([step]) => inclusive.has(step))
              .map(([step]) => ({
                "step (inclusive time)": step,
                ms: inclusive.get(step)!.toFixed(0),
                share: share(inclusive.get(step)!),
              })),
          ),
        ]),
  ].join("\n");
}

/** Summarises every profile named on the command line. */
export function summariseProfilesFromArgs(options: ProfileSummaryOptions): void {
  const files = process.argv.slice(2);
  if (files.length === 0) throw new Error("usage: profileSummary.ts <file.cpuprofile> [more]");
  process.stdout.write(`${files.map((file) => summariseProfile(file, options)).join("\n\n")}\n`);
}
