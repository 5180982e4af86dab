// Figures of bench/data's mix (mixRun.ts): per connection count and side, the means over the rounds,
// the gateway's ratios to the baseline and the targets; and the gateway's own count of the
// conditional reads it answered, from its ops /metrics.
import { table } from "../src/load.js";
import type { MixLoadResult } from "./mixLoad.js";

/** Issue 17, "Speed": gateway ≥ 0.8 × the node:http baseline's req/s, and a p99 not worse than its. */
export const MIX_TARGETS = { minRatio: 0.8, maxP99Ratio: 1 } as const;

export type MixSide = "baseline" | "gateway";

export interface MixSample extends MixLoadResult {
  side: MixSide;
  connections: number;
  round: number;
  /** Which side went first in this round. */
  first: MixSide;
  /** The machine's 1-minute load average when the side's round ended. */
  loadAverage: number;
  /** CPU time (user + system) each watched process spent during the run, less its idle rate, per answer, in µs. */
  cpuMicrosPerRequest: Record<string, number>;
  /** Gateway rounds: answers it sent from memory (304s proven, 200s kept) and change signals it got, during the round. */
  memory?: { answered: number; signals: number };
  /** Gateway rounds: its misses, as data-query's calls by method, and the chain's blocks built, during the round. */
  misses?: MissesDuring;
}

/** What the gateway asked data-query for during a round (each call a miss: no kept answer), and over how many blocks. */
export interface MissesDuring {
  blocks: number;
  calls: Record<string, number>;
}

export interface MixSideFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  notModifiedP99Ms: number;
  /** 304 answers over all answers. */
  notModifiedShare: number;
  /** Requests sent with If-None-Match over requests sent. */
  conditionalShare: number;
  failures: number;
  loadAverage: number;
  /** Mean CPU µs per answer of each watched process during this side's rounds. */
  cpuMicrosPerRequest: Record<string, number>;
  /** Of the processes that serve this side: the gateway, data-query and Redis, or the baseline and Redis. */
  servingCpuMicros: number;
  /** p99 of the answers in flight within a second after a read model changed, and of the rest (mixLoad.ts). */
  afterChangeP99Ms: number;
  quietP99Ms: number;
}

export interface MixFigures {
  connections: number;
  baseline: MixSideFigures;
  gateway: MixSideFigures;
  /** Gateway req/s over baseline req/s. */
  ratio: number;
  /** Gateway p99 over baseline p99. */
  p99Ratio: number;
  /** Baseline serving CPU per answer over the gateway path's: the req/s ratio where CPU alone limits. */
  cpuRatio: number;
  met: { throughput: boolean; p99: boolean };
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** The processes that serve each side. */
const SERVING: Record<MixSide, string[]> = {
  baseline: ["baseline", "redis"],
  gateway: ["gateway", "data-query", "redis"],
};

function sideFigures(samples: MixSample[], side: MixSide): MixSideFigures {
  const answers = sum(samples.map((sample) => sample.ok + sample.notModified));
  const sent = sum(samples.map((sample) => sample.sent));
  const cpu = Object.fromEntries(
    Object.keys(samples[0]?.cpuMicrosPerRequest ?? {}).map((name) => [
      name,
      mean(samples.map((sample) => sample.cpuMicrosPerRequest[name]!)),
    ]),
  );
  return {
    requestsPerSecond: mean(samples.map((sample) => sample.requestsPerSecond)),
    p50Ms: mean(samples.map((sample) => sample.p50Ms)),
    p99Ms: mean(samples.map((sample) => sample.p99Ms)),
    notModifiedP99Ms: mean(samples.map((sample) => sample.notModifiedP99Ms)),
    notModifiedShare: sum(samples.map((sample) => sample.notModified)) / answers,
    conditionalShare: sum(samples.map((sample) => sample.conditional - sample.conditionalWithoutTag)) / sent,
    failures: sum(samples.map((sample) => sample.failures)),
    loadAverage: mean(samples.map((sample) => sample.loadAverage)),
    cpuMicrosPerRequest: cpu,
    servingCpuMicros: sum(SERVING[side].map((name) => cpu[name] ?? 0)),
    afterChangeP99Ms: mean(samples.map((sample) => sample.afterChange?.p99Ms ?? Number.NaN)),
    quietP99Ms: mean(samples.map((sample) => sample.quiet?.p99Ms ?? Number.NaN)),
  };
}

/** Means over the rounds (as run.ts reports), per connection count, against the targets. */
export function mixFigures(samples: MixSample[]): MixFigures[] {
  return [...new Set(samples.map((sample) => sample.connections))].map((connections) => {
    const at = samples.filter((sample) => sample.connections === connections);
    const baseline = sideFigures(
      at.filter((sample) => sample.side === "baseline"),
      "baseline",
    );
    const gateway = sideFigures(
      at.filter((sample) => sample.side === "gateway"),
      "gateway",
    );
    const ratio = gateway.requestsPerSecond / baseline.requestsPerSecond;
    const p99Ratio = gateway.p99Ms / baseline.p99Ms;
    return {
      connections,
      baseline,
      gateway,
      ratio,
      p99Ratio,
      cpuRatio: baseline.servingCpuMicros / gateway.servingCpuMicros,
      met: { throughput: ratio >= MIX_TARGETS.minRatio, p99: p99Ratio <= MIX_TARGETS.maxP99Ratio },
    };
  });
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
const percent = (value: number) => (Number.isFinite(value) ? `${(value * 100).toFixed(1)} %` : "-");

/** Every round of every side, then the summary against the targets. */
export function renderMix(samples: MixSample[], figures: MixFigures[]): string {
  const rounds = table(
    samples.map((sample) => ({
      conn: sample.connections,
      round: sample.round + 1,
      side: sample.side,
      first: sample.first === sample.side ? "yes" : "",
      "req/s": fixed(sample.requestsPerSecond, 0),
      p50: fixed(sample.p50Ms),
      p99: fixed(sample.p99Ms),
      "200 p99": fixed(sample.okP99Ms),
      "304 p50": fixed(sample.notModifiedP50Ms),
      "304 p99": fixed(sample.notModifiedP99Ms),
      "304s": percent(sample.notModified / (sample.ok + sample.notModified)),
      "chg p99": sample.afterChange ? fixed(sample.afterChange.p99Ms) : "",
      "quiet p99": sample.quiet ? fixed(sample.quiet.p99Ms) : "",
      "in chg": sample.afterChange ? percent(sample.afterChange.share) : "",
      "cond. sent": percent((sample.conditional - sample.conditionalWithoutTag) / sample.sent),
      "from memory": sample.memory ? percent(sample.memory.answered / sample.total) : "",
      signals: sample.memory?.signals ?? "",
      s: fixed(sample.elapsedSeconds),
      errors: sample.failures,
      load: fixed(sample.loadAverage, 2),
    })),
  );
  const summary = table(
    figures.flatMap((entry) => [
      ...(["baseline", "gateway"] as const).map((side) => ({
        conn: entry.connections,
        side,
        "req/s": fixed(entry[side].requestsPerSecond, 0),
        p50: fixed(entry[side].p50Ms),
        p99: fixed(entry[side].p99Ms),
        "304 p99": fixed(entry[side].notModifiedP99Ms),
        "chg p99": fixed(entry[side].afterChangeP99Ms),
        "quiet p99": fixed(entry[side].quietP99Ms),
        "304s": percent(entry[side].notModifiedShare),
        "cond. sent": percent(entry[side].conditionalShare),
        errors: entry[side].failures,
        "cpu µs/req": `${fixed(entry[side].servingCpuMicros, 0)} (${SERVING[side]
          .map((name) => fixed(entry[side].cpuMicrosPerRequest[name] ?? Number.NaN, 0))
          .join(" + ")})`,
        "gw/base req/s": side === "gateway" ? fixed(entry.ratio, 2) : "",
        "gw/base p99": side === "gateway" ? fixed(entry.p99Ratio, 2) : "",
        "cpu ratio": side === "gateway" ? fixed(entry.cpuRatio, 2) : "",
        met:
          side === "gateway"
            ? `${entry.met.throughput ? "yes" : "NO"} / ${entry.met.p99 ? "yes" : "NO"}`
            : `≥ ${MIX_TARGETS.minRatio} / ≤ ${MIX_TARGETS.maxP99Ratio}`,
      })),
    ]),
  );
  return `every round (latencies in ms; 304s = share of answers; chg p99 / quiet p99 = p99 of the answers in flight within a second after a read model changed (a block's or a price round's commits) / of the rest, in chg = the former's share; cond. sent = requests sent with If-None-Match; s = the run's seconds)\n${rounds}\n\nmeans over the rounds; targets: gateway/baseline req/s ≥ ${MIX_TARGETS.minRatio}, gateway p99 ≤ baseline p99; cpu µs/req of the serving processes (baseline + Redis; gateway + data-query + Redis), idle rates taken out; cpu ratio = baseline's / gateway's\n${summary}`;
}

/** A Prometheus metric's samples from an exposition text, as `name{labels}` → value. */
export function counterSamples(text: string, name: string): Record<string, number> {
  const samples: Record<string, number> = {};
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const at = line.lastIndexOf(" ");
    samples[line.slice(0, at)] = Number(line.slice(at + 1));
  }
  return samples;
}

/**
 * The gateway's answers from memory in `counts` (counterSamples of gateway_conditional_reads_total
 * and gateway_kept_answers_served_total), summed over routes: 304s proven without a data-query call,
 * 304s after one, conditional requests answered 200 with a new tag, and 200s sent again from memory.
 */
export function summarizeCounts(counts: Record<string, number>) {
  const total = (pattern: RegExp) =>
    sum(
      Object.entries(counts)
        .filter(([labels]) => pattern.test(labels))
        .map(([, value]) => value),
    );
  return {
    notModifiedCached: total(/result="not_modified_cached"/),
    notModifiedAfterCall: total(/result="not_modified_after_call"/),
    modified: total(/result="modified"/),
    keptAnswersServed: total(/^gateway_kept_answers_served_total/),
    // Intents signals feed no Data API answer.
    changeSignals: total(/^gateway_conditional_change_signals_total\{.*projection="(market|subnets|accounts)"/),
  };
}

/** `after - before` per label set (a counter absent before counts from 0). */
export const counterDelta = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).map(([labels, value]) => [labels, value - (before[labels] ?? 0)]));

/** The conditional-read counts as a table: per route template and result, during the rounds and since start. */
export function renderCounts(during: Record<string, number>, total: Record<string, number>): string {
  const rows = Object.keys(total)
    .sort()
    .map((labels) => ({
      labels: labels.replace(/,?service="gateway"/, ""),
      "during the rounds": during[labels] ?? 0,
      "since start": total[labels]!,
    }));
  return rows.length === 0 ? "(none)" : table(rows);
}

/**
 * Per connection count, the gateway's misses by data-query method over its rounds: how many each
 * block causes (calls ÷ blocks built during the rounds) and per second, busiest first. What a
 * block's change signals cost, route by route (issue 35, "see the tail").
 */
export function renderMisses(samples: MixSample[]): string {
  const rows: Array<Record<string, string | number>> = [];
  for (const connections of [...new Set(samples.map((sample) => sample.connections))]) {
    const rounds = samples.filter(
      (sample) => sample.side === "gateway" && sample.connections === connections && sample.misses !== undefined,
    );
    const blocks = sum(rounds.map((round) => round.misses!.blocks));
    const seconds = sum(rounds.map((round) => round.total / round.requestsPerSecond));
    const answers = sum(rounds.map((round) => round.total));
    const byMethod = new Map<string, number>();
    for (const round of rounds)
      for (const [method, calls] of Object.entries(round.misses!.calls))
        byMethod.set(method, (byMethod.get(method) ?? 0) + calls);
    for (const [method, calls] of [...byMethod].sort((a, b) => b[1] - a[1]))
      rows.push({
        conn: connections,
        "data-query method": method,
        "misses per block": blocks > 0 ? (calls / blocks).toFixed(1) : "-",
        "misses/s": (calls / seconds).toFixed(1),
        "of all answers": `${((calls / answers) * 100).toFixed(2)} %`,
      });
    rows.push({
      conn: connections,
      "data-query method": `(all; ${blocks} blocks in ${seconds.toFixed(0)} s)`,
      "misses per block": blocks > 0 ? (sum([...byMethod.values()]) / blocks).toFixed(1) : "-",
      "misses/s": (sum([...byMethod.values()]) / seconds).toFixed(1),
      "of all answers": `${((sum([...byMethod.values()]) / answers) * 100).toFixed(2)} %`,
    });
  }
  return rows.length === 0 ? "(no gateway rounds)" : table(rows);
}
