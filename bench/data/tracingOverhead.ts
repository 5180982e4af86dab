import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { PortPlan, RunningStack } from "@platform/local-stack";
import type { Redis } from "@platform/store";
import { table } from "../src/load.js";
import { measureRotating, measureTogether, type Sample, warmUp } from "./measure.js";
import type { BenchRoute } from "./routes.js";
import { type ServingPair, startServingPair } from "./servingPair.js";

/**
 * BENCH_TRACING_MODE: `together` (the default) loads both pairs at once each round, `connections`
 * each (measure.ts, measureTogether): whatever else the two shared cores do then falls on both, and
 * two untraced pairs read 0.98–1.05 of each other that way, 0.985–1.016 as medians of the rounds
 * (BENCH_TRACING_AA=1). `rotating` loads one after the other, as the main tables do, and spreads
 * ± 5–10 % round to round here.
 */
const TOGETHER = (process.env.BENCH_TRACING_MODE ?? "together") === "together";

/**
 * BENCH_TRACING=1: what tracing costs on the Data API path. Two fresh pairs of gateway and
 * data-query from dist beside the stack's own, identical but for the OTEL_* variables: one with
 * tracing off (the default), one with tracing on as production would run it, sampled at 1 %
 * (`parentbased_traceidratio`, 0.01) and exporting over OTLP/HTTP to a local receiver that takes
 * and drops the spans. Each route is loaded through both, `rounds` times; the ratio is traced
 * req/s over untraced req/s (target: within 5 %), over the means and as the median of the rounds.
 */
export async function measureTracingOverhead(options: {
  stack: RunningStack;
  /** The stack's port plan: the pairs' gateways call the stack's auth, tc and intents. */
  ports: PortPlan;
  stateDir: string;
  routes: BenchRoute[];
  headers: Record<string, string>;
  connections: number[];
  seconds: number;
  rounds: number;
  warmUpSeconds: number;
  redis: Redis;
}): Promise<void> {
  const receiver = await startSpanSink();
  const started: ServingPair[] = [];
  const pairOptions = { stack: options.stack, ports: options.ports, stateDir: options.stateDir };
  try {
    const off = await startServingPair({ ...pairOptions, name: "tracing-off" });
    started.push(off);
    // BENCH_TRACING_AA=1 (calibration): the "on" pair traces nothing either, so a ratio off 1 is the method's.
    const onEnv = process.env.BENCH_TRACING_AA === "1" ? {} : tracingEnv(receiver.endpoint);
    const on = await startServingPair({ ...pairOptions, name: "tracing-on", env: onEnv });
    started.push(on);
    const processes = {
      "gateway-off": off.pids.gateway,
      "data-query-off": off.pids["data-query"],
      "gateway-on": on.pids.gateway,
      "data-query-on": on.pids["data-query"],
    };
    const targetsOf = (route: BenchRoute) => [
      { side: "tracing-off" as const, url: `${off.baseUrl}${route.path}`, headers: options.headers },
      { side: "tracing-on" as const, url: `${on.baseUrl}${route.path}`, headers: options.headers },
    ];
    process.stdout.write("tracing overhead: warming up both pairs…\n");
    await warmUp(options.routes.flatMap(targetsOf), 32, options.warmUpSeconds);
    const rows: Record<string, string>[] = [];
    for (const route of options.routes) {
      for (const connections of options.connections) {
        process.stdout.write(`tracing overhead: ${route.name} at ${connections} connections…\n`);
        const samples = await (TOGETHER ? measureTogether : measureRotating)({
          targets: targetsOf(route),
          connections,
          seconds: options.seconds,
          rounds: options.rounds,
          redis: options.redis,
          processes,
        });
        rows.push(rowOf(route, connections, samples));
      }
    }
    process.stdout.write(
      `\ntracing on (1 % sampled, OTLP/HTTP to a local receiver: ${receiver.requests()} exports, ${(receiver.bytes() / 1024).toFixed(0)} KiB) vs off, ${options.rounds} ${TOGETHER ? "rounds of both pairs loaded at once (conn. each)" : "rotating rounds"} of ${options.seconds} s each\n${table(rows)}\n\n`,
    );
  } finally {
    for (const pair of started.reverse()) await pair.stop();
    await receiver.close();
  }
}

/** Tracing as production would run it: sampled at 1 %, exported over OTLP/HTTP to `endpoint`. */
export function tracingEnv(endpoint: string): Record<string, string> {
  return {
    OTEL_TRACES_EXPORTER: "otlp",
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
    OTEL_TRACES_SAMPLER_ARG: "0.01",
  };
}

function rowOf(route: BenchRoute, connections: number, samples: Sample[]): Record<string, string> {
  const mean = (side: string, pick: (sample: Sample) => number) => {
    const mine = samples.filter((sample) => sample.side === side);
    return mine.reduce((sum, sample) => sum + pick(sample), 0) / mine.length;
  };
  const cpu = (side: string, suffix: string) =>
    mean(
      side,
      (sample) =>
        (sample.cpuMicrosPerRequest[`gateway-${suffix}`] ?? 0) +
        (sample.cpuMicrosPerRequest[`data-query-${suffix}`] ?? 0),
    );
  const processCpu = (side: string, name: string) =>
    mean(side, (sample) => sample.cpuMicrosPerRequest[name] ?? 0).toFixed(1);
  const offRate = mean("tracing-off", (sample) => sample.requestsPerSecond);
  const onRate = mean("tracing-on", (sample) => sample.requestsPerSecond);
  return {
    route: route.name,
    conn: String(connections),
    "off req/s": offRate.toFixed(0),
    "on req/s": onRate.toFixed(0),
    "ratio on/off": (onRate / offRate).toFixed(3),
    "median round ratio": medianRoundRatio(samples).toFixed(3),
    "off p99": mean("tracing-off", (sample) => sample.p99Ms).toFixed(1),
    "on p99": mean("tracing-on", (sample) => sample.p99Ms).toFixed(1),
    "CPU µs/req off → on": `${cpu("tracing-off", "off").toFixed(0)} → ${cpu("tracing-on", "on").toFixed(0)}`,
    "gateway · data-query µs/req off → on": `${processCpu("tracing-off", "gateway-off")} · ${processCpu("tracing-off", "data-query-off")} → ${processCpu("tracing-on", "gateway-on")} · ${processCpu("tracing-on", "data-query-on")}`,
  };
}

/**
 * The median over rounds of each round's on/off throughput ratio: both sides of a round ran back to
 * back, so a block's burst of work on the shared cores, or the machine's drift over the minutes,
 * moves one round's pair together rather than tilting the means; one round a burst hit one side of
 * is one outlier of the median, not a share of the mean.
 */
function medianRoundRatio(samples: Sample[]): number {
  const rounds = new Map<number, { off?: number; on?: number }>();
  for (const sample of samples) {
    const pair = rounds.get(sample.round) ?? {};
    if (sample.side === "tracing-off") pair.off = sample.requestsPerSecond;
    else pair.on = sample.requestsPerSecond;
    rounds.set(sample.round, pair);
  }
  const ratios = [...rounds.values()]
    .filter((pair) => pair.off !== undefined && pair.on !== undefined)
    .map((pair) => pair.on! / pair.off!)
    .sort((left, right) => left - right);
  const middle = Math.floor(ratios.length / 2);
  return ratios.length % 2 === 1 ? ratios[middle]! : (ratios[middle - 1]! + ratios[middle]!) / 2;
}

/** Takes OTLP/HTTP exports and drops them (answers 200), counting what arrived. */
export async function startSpanSink(): Promise<{
  endpoint: string;
  requests(): number;
  bytes(): number;
  close(): Promise<void>;
}> {
  let requests = 0;
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    request.on("end", () => {
      requests += 1;
      response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests: () => requests,
    bytes: () => bytes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
