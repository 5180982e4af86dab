// Which answers make the mix's tail, after a read-model change and otherwise: from a trace of a
// BENCH_MIX_SPLIT=1 run (BENCH_MIX_TRACE=<file>, mixLoad.ts), per side, the p99 of the requests that
// met a change and of the rest, and the routes and statuses of the slowest 1 % of each, with each
// route's own p99 there.
//
//   (cd bench && BENCH_MIX_SPLIT=1 BENCH_MIX_TRACE=/tmp/mix.jsonl pnpm data-mix)
//   (cd bench && tsx data/traceSummary.ts /tmp/mix.jsonl)
import { readFileSync } from "node:fs";
import { table } from "../src/load.js";
import { quantile } from "./mixLoad.js";

interface TraceRun {
  side?: string;
  base: string;
  urls: string[];
  /** start ms, latency ms, url index, status[, met a change (1) or not (0)] */
  trace: number[][];
}

interface Answer {
  latencyMs: number;
  kind: string;
  afterChange: boolean;
}

const ROWS = 8;

const file = process.argv[2];
if (file === undefined) throw new Error("usage: traceSummary.ts <trace.jsonl>");
const runs = readFileSync(file, "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as TraceRun);

const bySide = new Map<string, Answer[]>();
for (const run of runs)
  for (const [, latencyMs, url, status, met] of run.trace) {
    // Warm-ups carry no change flag: they are not measured.
    if (met === undefined) continue;
    const side = run.side ?? run.base;
    const answers = bySide.get(side) ?? [];
    answers.push({
      latencyMs: latencyMs!,
      kind: `${routeOf(run.urls[url!] ?? "?")} ${status}`,
      afterChange: met === 1,
    });
    bySide.set(side, answers);
  }

for (const [side, answers] of bySide)
  for (const afterChange of [true, false]) {
    const window = answers.filter((answer) => answer.afterChange === afterChange);
    const p99 = quantile(
      window.map((answer) => answer.latencyMs),
      0.99,
    );
    const slowest = window.filter((answer) => answer.latencyMs >= p99);
    const count = (of: Answer[]) => {
      const counts = new Map<string, Answer[]>();
      for (const answer of of) {
        const same = counts.get(answer.kind);
        if (same === undefined) counts.set(answer.kind, [answer]);
        else same.push(answer);
      }
      return counts;
    };
    const all = count(window);
    process.stdout.write(
      `\n${side}, ${afterChange ? "in flight within 1 s after a change" : "the rest"}: ${window.length} answers, p99 ${p99.toFixed(1)} ms\n`,
    );
    process.stdout.write(
      `${table(
        [...count(slowest)]
          .sort((a, b) => b[1].length - a[1].length)
          .slice(0, ROWS)
          .map(([kind, slow]) => ({
            "route and status": kind,
            "of the slowest 1 %": `${((100 * slow.length) / slowest.length).toFixed(0)} %`,
            answers: all.get(kind)!.length,
            "its p99 ms": quantile(
              all.get(kind)!.map((answer) => answer.latencyMs),
              0.99,
            ).toFixed(1),
          })),
      )}\n`,
    );
  }

/** The route's path template: account addresses and netuids left out. */
function routeOf(url: string): string {
  return url
    .split("?")[0]!
    .replace("/data/v1/", "")
    .replace(/accounts\/[^/]+/, "accounts/:address")
    .replace(/subnets\/\d+/, "subnets/:netuid")
    .replace(/subnet-pools\/\d+/, "subnet-pools/:netuid");
}
