// Summarises V8 CPU profiles (from BENCH_CPU_PROFILE) for a terminal: where the process spent its
// samples, by area (gRPC, protobuf, express, JSON, Redis client, the service's own code...) and by
// function (self time).
//
//   tsx bench/data/profileSummary.ts <file.cpuprofile> [more files]
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { table } from "../src/load.js";

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

/** Areas by where the code lives; the first match wins. */
const AREAS: Array<[string, RegExp]> = [
  ["module loading (startup)", /internal\/modules|node:internal\/vm|tsx\//],
  ["gRPC (grpc-js, http2)", /@grpc\/grpc-js|node:http2|internal\/http2/],
  ["protobuf encode/decode", /@bufbuild|protobufjs|libs\/proto\//],
  ["Redis client (ioredis)", /ioredis|redis-parser|denque/],
  ["express, router, http", /express|router|body-parser|finalhandler|send\/|node:_http|internal\/http|_http_/],
  ["zod validation", /zod/],
  ["jose (token verify)", /jose/],
  ["pino logging, prom-client", /pino|prom-client|sonic-boom/],
  ["gateway code", /services\/gateway\//],
  ["data-query code", /services\/data-query\//],
  ["platform libs", /libs\/(http|grpc|errors|runtime|service|store|log)\//],
  ["node net, streams, timers", /node:net|node:stream|internal\/streams|node:timers|internal\/timers|node:events|internal\/process|internal\/async_hooks|node:buffer|internal\/buffer/],
];

function areaOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (url === "") {
    if (functionName === "(garbage collector)") return "garbage collection";
    if (functionName === "(idle)" || functionName === "(program)") return functionName;
    if (/^(stringify|parse)$/.test(functionName)) return "JSON (native)";
    return "native / builtins";
  }
  return AREAS.find(([, pattern]) => pattern.test(url))?.[0] ?? "other JS";
}

function summarise(file: string): string {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, index) => selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1_000));
  // Idle time and the process's start (loading its modules) are not the load's.
  const startup = (node: ProfileNode) => areaOf(node) === "module loading (startup)" || /^(openFileHandle|realpathSync|readFileUtf8|internalModuleStat)$/.test(node.callFrame.functionName);
  const busy = [...selfMs].filter(([id]) => !/^\((idle|program)\)$/.test(byId.get(id)!.callFrame.functionName) && !startup(byId.get(id)!));
  const total = busy.reduce((sum, [, ms]) => sum + ms, 0);
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, ms] of busy) {
    const node = byId.get(id)!;
    areas.set(areaOf(node), (areas.get(areaOf(node)) ?? 0) + ms);
    const where = node.callFrame.url === "" ? "" : ` ${node.callFrame.url.replace(/^.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, "").replace(/^file:\/\/.*?\/(services|libs)\//, "$1/")}:${node.callFrame.lineNumber + 1}`;
    const name = `${node.callFrame.functionName || "(anonymous)"}${where}`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
  }
  const share = (ms: number) => `${((100 * ms) / total).toFixed(1)}%`;
  const top = (entries: Map<string, number>, count: number) => [...entries].sort((a, b) => b[1] - a[1]).slice(0, count);
  return [
    `${basename(file)}: ${total.toFixed(0)} ms busy (idle and module loading left out)`,
    table(top(areas, 20).map(([area, ms]) => ({ area, ms: ms.toFixed(0), share: share(ms) }))),
    "",
    table(top(functions, 25).map(([fn, ms]) => ({ "function (self time)": fn.slice(0, 120), ms: ms.toFixed(0), share: share(ms) }))),
  ].join("\n");
}

const files = process.argv.slice(2);
if (files.length === 0) throw new Error("usage: profileSummary.ts <file.cpuprofile> [more]");
process.stdout.write(`${files.map(summarise).join("\n\n")}\n`);
