import { table } from "../src/load.js";
import type { Sample, Side } from "./measure.js";
import type { BenchRoute, Group } from "./routes.js";

export const TARGETS = { minRatio: 0.6, maxP99MsAt32: 25 } as const;

export interface RouteFigures {
  route: string;
  group: Group;
  /** The group's headline route (routes.ts): the one its latency target is judged on. */
  headline: boolean;
  path: string;
  connections: number;
  baseline: SideFigures;
  gateway: SideFigures;
  /** Gateway req/s over baseline req/s. */
  ratio: number;
  /** The same baseline on node:http without express, when measured (BENCH_NODE_BASELINE=1). */
  nodeBaseline?: SideFigures;
  /** Gateway req/s over the node:http baseline's. */
  nodeRatio?: number;
  samples: Sample[];
}

export interface SideFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
  redisCommandsPerRequest: number;
  loadAverage: number;
  /** Mean CPU µs per request of each watched process during this side's rounds. */
  cpuMicrosPerRequest: Record<string, number>;
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

function sideFigures(samples: Sample[], side: Side): SideFigures {
  const mine = samples.filter((sample) => sample.side === side);
  return {
    requestsPerSecond: mean(mine.map((sample) => sample.requestsPerSecond)),
    p50Ms: mean(mine.map((sample) => sample.p50Ms)),
    p99Ms: mean(mine.map((sample) => sample.p99Ms)),
    failures: mine.reduce((sum, sample) => sum + sample.failures, 0),
    redisCommandsPerRequest: mean(mine.map((sample) => sample.redisCommandsPerRequest)),
    loadAverage: mean(mine.map((sample) => sample.loadAverage)),
    cpuMicrosPerRequest: Object.fromEntries(
      Object.keys(mine[0]?.cpuMicrosPerRequest ?? {}).map((name) => [
        name,
        mean(mine.map((sample) => sample.cpuMicrosPerRequest[name]!)),
      ]),
    ),
  };
}

/** Means over the rounds of each side (as bench/auth reports them) and the throughput ratio. */
export function figuresOf(route: BenchRoute, connections: number, samples: Sample[]): RouteFigures {
  const baseline = sideFigures(samples, "baseline");
  const gateway = sideFigures(samples, "gateway");
  const figures: RouteFigures = {
    route: route.name,
    group: route.group,
    headline: route.headline,
    path: route.path,
    connections,
    baseline,
    gateway,
    ratio: gateway.requestsPerSecond / baseline.requestsPerSecond,
    samples,
  };
  if (samples.some((sample) => sample.side === "node-baseline")) {
    figures.nodeBaseline = sideFigures(samples, "node-baseline");
    figures.nodeRatio = gateway.requestsPerSecond / figures.nodeBaseline.requestsPerSecond;
  }
  return figures;
}

/**
 * A group's figures at a connection count against the targets: the throughput ratio of its weakest
 * route (every measured route must reach it), and the p99 of its headline route. The heavy page
 * reads' p99 is shown beside their baseline's own: a p99 of 25 ms at 32 closed-loop connections
 * needs more than 1,280 answers a second, which a page of 50 transactions or every pool at once does
 * not reach on two cores with or without the gateway (their baseline answers 950-1,900 a second,
 * p99 40-70 ms), so that target is judged where it can mean something: the group's headline read.
 */
export function groupSummary(figures: RouteFigures[]) {
  const groups = [...new Set(figures.map((entry) => entry.group))];
  const connectionCounts = [...new Set(figures.map((entry) => entry.connections))];
  return groups.flatMap((group) =>
    connectionCounts.flatMap((connections) => {
      const rows = figures.filter((entry) => entry.group === group && entry.connections === connections);
      if (rows.length === 0) return [];
      const ratio = Math.min(...rows.map((entry) => entry.ratio));
      const headline = rows.find((entry) => entry.headline);
      const others = rows.filter((entry) => !entry.headline);
      const ratioMet = ratio >= TARGETS.minRatio;
      const p99Met = connections !== 32 || (headline !== undefined && headline.gateway.p99Ms < TARGETS.maxP99MsAt32);
      return [
        {
          group,
          connections,
          routes: rows.length,
          ratio,
          headlineP99Ms: headline?.gateway.p99Ms ?? Number.NaN,
          headlineBaselineP99Ms: headline?.baseline.p99Ms ?? Number.NaN,
          othersP99Ms: others.map((entry) => ({
            route: entry.route,
            gateway: entry.gateway.p99Ms,
            baseline: entry.baseline.p99Ms,
          })),
          met: ratioMet && p99Met,
        },
      ];
    }),
  );
}

/** CPU µs per request of the processes that serve a side: its HTTP process(es) and Redis. */
export function servingCpu(entry: RouteFigures, side: Side): number {
  const figures = side === "node-baseline" ? entry.nodeBaseline : entry[side];
  const served = side === "gateway" ? ["gateway", "data-query", "redis"] : [side, "redis"];
  return served.reduce((sum, name) => sum + (figures?.cpuMicrosPerRequest[name] ?? 0), 0);
}

/**
 * Baseline CPU per request over the gateway path's: the throughput ratio a machine given to this
 * stack alone would show when CPU is what limits it. Steadier than the req/s ratio on a shared,
 * overloaded machine, where three processes in a chain each wait for a core on every request.
 */
export const cpuRatio = (entry: RouteFigures): number => servingCpu(entry, "baseline") / servingCpu(entry, "gateway");

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "-");

/** One table per group and connection count, then the group summary against the targets. */
export function renderTables(figures: RouteFigures[]): string {
  const blocks: string[] = [];
  for (const group of [...new Set(figures.map((entry) => entry.group))]) {
    for (const connections of [...new Set(figures.map((entry) => entry.connections))]) {
      const rows = figures.filter((entry) => entry.group === group && entry.connections === connections);
      if (rows.length === 0) continue;
      blocks.push(
        `${group}, ${connections} connections\n${table(
          rows.map((entry) => ({
            route: entry.route.replace(`${group}: `, ""),
            "base req/s": fixed(entry.baseline.requestsPerSecond, 0),
            "base p50": fixed(entry.baseline.p50Ms),
            "base p99": fixed(entry.baseline.p99Ms),
            "gw req/s": fixed(entry.gateway.requestsPerSecond, 0),
            "gw p50": fixed(entry.gateway.p50Ms),
            "gw p99": fixed(entry.gateway.p99Ms),
            ratio: fixed(entry.ratio, 2),
            ...(entry.nodeBaseline
              ? {
                  "node req/s": fixed(entry.nodeBaseline.requestsPerSecond, 0),
                  "node p99": fixed(entry.nodeBaseline.p99Ms),
                  "ratio to node": fixed(entry.nodeRatio ?? Number.NaN, 2),
                }
              : {}),
            "redis cmds/req base→gw": `${fixed(entry.baseline.redisCommandsPerRequest)}→${fixed(entry.gateway.redisCommandsPerRequest)}`,
            errors: entry.baseline.failures + entry.gateway.failures,
            load: fixed(mean([entry.baseline.loadAverage, entry.gateway.loadAverage]), 2),
          })),
        )}`,
      );
    }
  }
  const lowest = Math.min(...figures.map((entry) => entry.connections));
  const atLowest = figures.filter((entry) => entry.connections === lowest);
  const cpuTable = table(
    atLowest.flatMap((entry) =>
      (entry.nodeBaseline
        ? (["baseline", "node-baseline", "gateway"] as const)
        : (["baseline", "gateway"] as const)
      ).map((side) => {
        const cpu = (side === "node-baseline" ? entry.nodeBaseline! : entry[side]).cpuMicrosPerRequest;
        return {
          route: side === "baseline" ? entry.route : "",
          side,
          ...Object.fromEntries(Object.entries(cpu).map(([name, micros]) => [name, fixed(micros, 0)])),
          "serving total": fixed(servingCpu(entry, side), 0),
          "cpu ratio": side === "gateway" ? fixed(cpuRatio(entry), 2) : "",
        };
      }),
    ),
  );
  const summary = table(
    groupSummary(figures).map((entry) => ({
      group: entry.group,
      connections: entry.connections,
      "ratio (weakest route)": fixed(entry.ratio, 2),
      "headline p99 ms gw (base)": `${fixed(entry.headlineP99Ms)} (${fixed(entry.headlineBaselineP99Ms)})`,
      "heavy reads p99 ms gw (base)":
        entry.othersP99Ms.map((other) => `${fixed(other.gateway)} (${fixed(other.baseline)})`).join(", ") || "-",
      target:
        entry.connections === 32
          ? `ratio ≥ ${TARGETS.minRatio}, headline p99 < ${TARGETS.maxP99MsAt32} ms`
          : `ratio ≥ ${TARGETS.minRatio}`,
      met: entry.met ? "yes" : "NO",
    })),
  );
  return `${blocks.join("\n\n")}\n\nCPU µs per request by process at ${lowest} connections (bench = autocannon; idle rates taken out; cpu ratio = baseline serving total / gateway serving total)\n${cpuTable}\n\nper group: the ratio of its weakest route, the p99 of its headline route (heavy reads beside it)\n${summary}`;
}
