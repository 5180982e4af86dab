// Summarising V8 CPU profiles (`--cpu-prof`) for a terminal, shared by the benchmarks' profile
// summarisers: where a process spent its busy samples by area (each bench names its own areas by
// where the code lives), by function (self time), and optionally the inclusive time of named steps.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { table } from "./load.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  /** Microseconds of the monotonic clock (CLOCK_MONOTONIC, as `process.hrtime`). */
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Now on the clock a V8 CPU profile times its samples by, in microseconds. */
export function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1_000n);
}

/**
 * A profiled stretch and the moments in it that matter, on the profiles' clock (monotonicMicros),
 * as a bench writes them beside its profiles (bench/data's mix: its read-model changes).
 */
export interface ProfileMarks {
  fromMicros: number;
  toMicros: number;
  changesMicros: number[];
}

/** Part of a profile's time: which sample times it holds, and how much wall time that is. */
export interface ProfileWindow {
  label: string;
  includes(micros: number): boolean;
  wallMicros: number;
}

/**
 * The marked stretch split in two: the `windowMs` after each change, and the rest. Sample times
 * outside the stretch belong to neither.
 */
export function splitAtChanges(marks: ProfileMarks, windowMs: number): [ProfileWindow, ProfileWindow] {
  const span = windowMs * 1_000;
  const changes = [...marks.changesMicros].sort((a, b) => a - b);
  const inStretch = (micros: number) => micros >= marks.fromMicros && micros < marks.toMicros;
  const afterChange = (micros: number) => {
    // The newest change at or before `micros` (binary search), within the window.
    let low = 0;
    let high = changes.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (changes[middle]! <= micros) low = middle + 1;
      else high = middle;
    }
    return low > 0 && micros - changes[low - 1]! < span;
  };
  let covered = 0;
  let coveredUntil = marks.fromMicros;
  for (const change of changes) {
    const from = Math.max(change, coveredUntil);
    const to = Math.min(change + span, marks.toMicros);
    if (to > from) covered += to - from;
    coveredUntil = Math.max(coveredUntil, to);
  }
  const total = marks.toMicros - marks.fromMicros;
  return [
    {
      label: `within ${windowMs} ms after a read-model change`,
      includes: (micros) => inStretch(micros) && afterChange(micros),
      wallMicros: covered,
    },
    {
      label: "the rest",
      includes: (micros) => inStretch(micros) && !afterChange(micros),
      wallMicros: total - covered,
    },
  ];
}

export interface ProfileSummaryOptions {
  /** Areas by where the code lives; the first match wins. Name one "module loading (startup)" to leave start-up out. */
  areas: Array<[string, RegExp]>;
  /** How many functions to list by self time. */
  functions: number;
  /** Steps whose inclusive time is shown: [label, function name ("" = any function of the file), file pattern]. */
  steps?: Array<[string, string, RegExp]>;
}

export function summariseProfile(file: string, options: ProfileSummaryOptions, window?: ProfileWindow): string {
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
  let sampledAt = profile.startTime;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    sampledAt += delta;
    if (window !== undefined && !window.includes(sampledAt)) return;
    selfMs.set(id, (selfMs.get(id) ?? 0) + delta / 1_000);
  });
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
    window === undefined
      ? `${basename(file)}: ${total.toFixed(0)} ms busy (idle and module loading left out)`
      : `${basename(file)}, ${window.label}: ${total.toFixed(0)} ms busy in ${(window.wallMicros / 1e6).toFixed(1)} s of wall time, ${((100 * total * 1_000) / Math.max(1, window.wallMicros)).toFixed(0)} % of a core (idle and module loading left out)`,
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

/**
 * Summarises every profile named on the command line. With `--changes <marks.json>` (ProfileMarks)
 * each is summarised twice over the marked stretch: the `--window-ms` (1,000) after each change, and
 * the rest.
 */
export function summariseProfilesFromArgs(options: ProfileSummaryOptions): void {
  const { values, positionals: files } = parseArgs({
    allowPositionals: true,
    options: { changes: { type: "string" }, "window-ms": { type: "string", default: "1000" } },
  });
  if (files.length === 0)
    throw new Error("usage: profileSummary.ts [--changes <marks.json> [--window-ms 1000]] <file.cpuprofile> [more]");
  const windows =
    values.changes === undefined
      ? [undefined]
      : splitAtChanges(JSON.parse(readFileSync(values.changes, "utf8")) as ProfileMarks, Number(values["window-ms"]));
  const summaries = files.flatMap((file) => windows.map((window) => summariseProfile(file, options, window)));
  process.stdout.write(`${summaries.join("\n\n")}\n`);
}
