// Summarises V8 CPU profiles of the projector (BENCH_PROJECTOR_CPU_PROFILE=<dir>) for a terminal:
// where its samples went by area (kafkajs, protobuf, Redis client, the intents projection's own
// steps, JSON, GC…), by function (self time), and the inclusive time of the projection's steps.
// In the style of bench/data/profileSummary.ts, with the areas of the projector.
//
//   tsx bench/intents/profileSummary.ts <file.cpuprofile> [more files]
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
  ["kafkajs (fetch, decode)", /kafkajs/],
  ["protobuf encode/decode", /@bufbuild|protobufjs|libs\/proto\//],
  ["Redis client (ioredis)", /ioredis|redis-parser|denque|cluster-key-slot|standard-as-callback/],
  ["viem (EIP-55 checksums)", /viem|@noble|abitype/],
  ["pino logging, prom-client", /pino|prom-client|sonic-boom|thread-stream/],
  ["intents: projection.ts", /projector\/(src|dist)\/intents\/projection\./],
  ["intents: orderState.ts", /projector\/(src|dist)\/intents\/orderState\./],
  ["intents: deriveRecord.ts", /projector\/(src|dist)\/intents\/deriveRecord\./],
  ["intents: decodeBatch.ts", /projector\/(src|dist)\/intents\/decodeBatch\./],
  ["intents: indexes, writes", /projector\/(src|dist)\/intents\/(recordIndexes|groupedWrites)\./],
  ["intents: other", /projector\/(src|dist)\/intents\//],
  ["libs/bus (consumer, envelope)", /libs\/bus\//],
  ["libs/store (versionedCommit)", /libs\/store\//],
  ["other platform code", /services\/|libs\//],
  ["node net, streams, timers, buffer", /node:net|node:stream|internal\/streams|node:timers|internal\/timers|node:events|internal\/process|internal\/async_hooks|node:buffer|internal\/buffer|node:zlib|internal\/(util|url|errors)/],
];

/** Functions whose inclusive time (with everything they call) is shown, matched by name and file. */
const STEPS: Array<[string, string, RegExp]> = [
  ["kafkajs: fetch and decode (Fetch response parse)", "decode", /kafkajs\/src\/protocol\/requests\/fetch\/v\d+\/response/],
  ["kafkajs: record batch decode", "decode", /kafkajs\/src\/protocol\/recordBatch\/v\d+\/index/],
  ["bus: projection consumer (each batch, all inside)", "", /libs\/bus\/(src|dist)\/projectionConsumer/],
  ["bus: fromKafkaMessage", "fromKafkaMessage", /libs\/bus\/(src|dist)\/envelope/],
  ["intents: decodeBatch", "decodeBatch", /intents\/decodeBatch/],
  ["intents: parse (loaded state)", "parse", /intents\/projection/],
  ["intents: parseOrderState", "parseOrderState", /intents\/orderState/],
  ["intents: serializeOrderState", "serializeOrderState", /intents\/orderState/],
  ["intents: deriveOrderRecord", "deriveOrderRecord", /intents\/deriveRecord/],
  ["intents: sameAsStored", "sameAsStored", /intents\/deriveRecord/],
  ["intents: recordIndexes", "recordIndexes", /intents\/recordIndexes/],
  ["intents: indexChanges", "indexChanges", /intents\/recordIndexes/],
  ["intents: loadCommands", "loadCommands", /intents\/projection/],
  ["store: readVersioned", "readVersioned", /libs\/store/],
  ["store: versionedCommit", "versionedCommit", /libs\/store/],
  ["ioredis: sendCommand", "sendCommand", /ioredis\/built\/Redis/],
  ["ioredis: pipeline exec", "exec", /ioredis\/built\/Pipeline/],
  ["ioredis: reply parsing", "execute", /redis-parser/],
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
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, index) => selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1_000));
  // Idle time and the process's start (loading its modules) are not the load's.
  const startup = (node: ProfileNode) => areaOf(node) === "module loading (startup)" || /^(openFileHandle|realpathSync|readFileUtf8|internalModuleStat)$/.test(node.callFrame.functionName);
  const busy = [...selfMs].filter(([id]) => !/^\((idle|program)\)$/.test(byId.get(id)!.callFrame.functionName) && !startup(byId.get(id)!));
  const total = busy.reduce((sum, [, ms]) => sum + ms, 0);
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, ms] of busy) {
    const node = byId.get(id)!;
    areas.set(areaOf(node), (areas.get(areaOf(node)) ?? 0) + ms);
    const where = node.callFrame.url === "" ? "" : ` ${node.callFrame.url.replace(/^.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, "").replace(/^file:\/\/.*?\/(services|libs)\//, "$1/")}:${node.callFrame.lineNumber + 1}`;
    const name = `${node.callFrame.functionName || "(anonymous)"}${where}`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
    // Each step counted once per sample, however deep it recurses.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      for (const [step, functionName, url] of STEPS) {
        if (seen.has(step) || !url.test(frame.url)) continue;
        // An empty name stands for any function of the file.
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
    table(top(functions, 30).map(([fn, ms]) => ({ "function (self time)": fn.slice(0, 120), ms: ms.toFixed(0), share: share(ms) }))),
    "",
    table(STEPS.filter(([step]) => inclusive.has(step)).map(([step]) => ({ "step (inclusive time)": step, ms: inclusive.get(step)!.toFixed(0), share: share(inclusive.get(step)!) }))),
  ].join("\n");
}

const files = process.argv.slice(2);
if (files.length === 0) throw new Error("usage: profileSummary.ts <file.cpuprofile> [more]");
process.stdout.write(`${files.map(summarise).join("\n\n")}\n`);
