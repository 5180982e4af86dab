// bench/intents: how soon an opened order shows OPEN through the public API, with and without the
// post-broadcast notification, and how fast the intents pipeline works off a backlog of Opens, on
// the local stack (anvil with 1 s blocks, Kafka, Redis, NATS, every service from dist).
//
//   pnpm bench:intents        (builds first; BENCH_RUNTIME=source runs the TypeScript instead)
//
// Baselines of the same run: for latency, the chain's own (broadcast until the receipt is
// available from the node), since the mirror can only start once the chain has the block; for the
// backlog, the node handing out the same Open logs in one eth_getLogs, the rate the source itself
// offers. The figures also go to bench/results/intents-<time>.json (git-ignored: one machine's).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  freePorts,
  redisAdminUrl,
  repoRoot,
  type ServiceRuntime,
  silentProgress,
  startStack,
} from "@platform/local-stack";
import { createRedis } from "@platform/store";
import { tempDir } from "@platform/testing";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { table } from "../src/load.js";
import { type BacklogResult, backlogRound } from "./backlog.js";
import { acceptTerms, connectGateway, type Gateway } from "./gateway.js";
import { type LatencySample, type Mode, measureLatency } from "./latency.js";
import { fund, type Origin, rpc } from "./origin.js";
import { serviceControl } from "./services.js";
import { summarise } from "./stats.js";

const ORDERS = Number(process.env.BENCH_ORDERS ?? 60);
const WALLETS = Number(process.env.BENCH_WALLETS ?? 4);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 10_000);
const ROUNDS = Number(process.env.BENCH_BACKLOG_ROUNDS ?? 1);
const RUNTIME: ServiceRuntime = process.env.BENCH_RUNTIME === "source" ? "source" : "dist";
/** `latency`, `backlog` or both (the default); the backlog alone needs neither the gateway nor auth. */
const PHASES = new Set((process.env.BENCH_PHASES ?? "latency,backlog").split(","));
/** `in sequence` (a figure for the ingestor and one for the projector), `together` (end to end), or both. */
const BACKLOG_MODES = (["in sequence", "together"] as const).filter((mode) =>
  (process.env.BENCH_BACKLOG_MODES ?? "in sequence,together").split(",").includes(mode),
);
const TARGETS = { followerP95Ms: 1_500, hintP95Ms: 500, eventP95Ms: 1_000, eventsPerSecond: 2_000 };

const state = tempDir("bench-intents");
const ports = await freePorts();
process.stdout.write("starting the stack (Kafka, Redis, NATS, anvil with 1 s blocks, services)…\n");
const stack = await startStack({
  stateDir: state.path,
  ports,
  detached: false,
  runtime: RUNTIME,
  progress: silentProgress,
  logLevel: "warn",
  // No simulator: its filler would fill (and its oracle settle) every order the bench opens,
  // backlog included, and the figures would measure that load too.
  simulator: false,
  // The backlog alone needs only the infrastructure: it starts the ingestor and the projector itself.
  ...(PHASES.has("latency") ? {} : { services: [] }),
});
const services = serviceControl(stack, ports, state.path, RUNTIME);
const redis = createRedis({
  url: redisAdminUrl(stack.descriptor),
  connectionName: "bench-intents",
  commandTimeoutMs: 30_000,
});

try {
  const originChain = stack.descriptor.chains.find((chain) => chain.chainId === 31337)!;
  const destinationChain = stack.descriptor.chains.find((chain) => chain.chainId === 31338)!;
  const origin: Origin = {
    chainId: originChain.chainId,
    destinationChainId: destinationChain.chainId,
    rpcUrl: originChain.rpcUrl,
    settler: originChain.contracts["fullSettler"] as Address,
    destinationSettler: destinationChain.contracts["fullSettler"] as Address,
  };
  let gateway: Gateway | undefined;
  let samples: LatencySample[] = [];
  if (PHASES.has("latency")) {
    gateway = await connectGateway(
      stack.descriptor.gatewayUrl,
      stack.descriptor.processes.find((entry) => entry.name === "auth")!.adminGrpcTarget!,
      RUNTIME,
    );
    // Wallets with coin and the current T&C accepted (the notification requires it).
    const wallets = Array.from({ length: WALLETS }, () => privateKeyToAccount(generatePrivateKey()));
    await fund(
      origin,
      wallets.map((wallet) => wallet.address),
    );
    for (const wallet of wallets) await acceptTerms(gateway, wallet);
    const pipelineLogLevel = process.env.BENCH_PIPELINE_LOG_LEVEL;
    if (pipelineLogLevel !== undefined) {
      // Diagnostics: the ingestor and the projector again, logging each step (BENCH_KEEP_STATE=1 keeps the logs).
      await Promise.all([services.stop("chain-ingestor"), services.stop("projector")]);
      services.start("chain-ingestor", pipelineLogLevel);
      services.start("projector", pipelineLogLevel);
    }
    process.stdout.write(`latency: ${ORDERS} orders per mode from ${WALLETS} wallets…\n`);
    await measureLatency(origin, gateway, wallets, "block follower only", 4); // warm-up: connections, JIT, first writes
    samples = await measureLatency(origin, gateway, wallets, "block follower only", ORDERS);
    // The same orders seen through each wallet's event stream instead of polling its status.
    samples.push(...(await measureLatency(origin, gateway, wallets, "event stream", ORDERS)));
    // The orders with a notification come last: after one, the ingestor polls its chain quickly for 15 s.
    samples.push(...(await measureLatency(origin, gateway, wallets, "with notification hint", ORDERS)));
  }

  const backlog: (BacklogResult & { mode: string })[] = [];
  let sourceRate: number[] = [];
  for (let round = 0; PHASES.has("backlog") && round < ROUNDS; round++) {
    for (const mode of BACKLOG_MODES) {
      process.stdout.write(
        `backlog round ${round + 1}/${ROUNDS} (${mode}): mining ${BACKLOG} Opens with the ingestor and the projector stopped…\n`,
      );
      const before = BigInt(await rpc<Hex>(origin.rpcUrl, "eth_blockNumber", []));
      backlog.push({ mode, ...(await backlogRound({ origin, gateway, redis, services, count: BACKLOG, mode })) });
      sourceRate.push(await getLogsRate(origin, before));
    }
  }
  sourceRate = sourceRate.filter(Number.isFinite);
  report(samples, backlog, sourceRate);
} finally {
  await redis.quit().catch(() => redis.disconnect());
  await services.stopAll();
  await stack.stop();
  // BENCH_KEEP_STATE=1 keeps the services' logs (and data) for a look afterwards.
  if (process.env.BENCH_KEEP_STATE === "1") process.stdout.write(`state and logs kept in ${state.path}\n`);
  else state.remove();
}

/** The node's own rate for the backlog's Open logs: one eth_getLogs over the blocks after `after`. */
async function getLogsRate(origin: Origin, after: bigint): Promise<number> {
  const started = performance.now();
  const logs = await rpc<unknown[]>(origin.rpcUrl, "eth_getLogs", [
    { address: origin.settler, fromBlock: `0x${(after + 1n).toString(16)}`, toBlock: "latest" },
  ]);
  return logs.length / ((performance.now() - started) / 1_000);
}

function report(samples: LatencySample[], backlog: (BacklogResult & { mode: string })[], sourceRate: number[]): void {
  const chain = summarise(samples.map((sample) => sample.chainMs));
  const modes: Mode[] = ["block follower only", "event stream", "with notification hint"];
  const latency = modes.map((mode) => ({
    mode,
    ...summarise(samples.filter((sample) => sample.mode === mode).map((sample) => sample.mirrorMs)),
  }));
  const rates = (pick: (result: BacklogResult) => number | undefined) =>
    backlog
      .map(pick)
      .filter((seconds): seconds is number => seconds !== undefined)
      .map((seconds) => BACKLOG / seconds);
  const spread = (values: number[]) =>
    values.length === 0 ? "-" : `${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))}`;
  const mid = (values: number[]) => summarise(values).p50;
  const source = mid(sourceRate);
  const throughput = [
    { measure: "node: eth_getLogs of the backlog (baseline)", values: sourceRate },
    { measure: "chain-ingestor: read and publish", values: rates((result) => result.ingestorSeconds) },
    { measure: "projector: fold until the last is visible", values: rates((result) => result.projectorSeconds) },
    { measure: "projector: first visible → last visible", values: rates((result) => result.projectorSteadySeconds) },
    { measure: "end to end: both started together", values: rates((result) => result.endToEndSeconds) },
  ];

  const latencyTable = table([
    {
      "mined → OPEN seen (GET /intents/v1/intents/{orderId} polled, or GET /intents/v1/events)":
        "chain: broadcast → receipt (baseline)",
      n: chain.count,
      "p50 ms": chain.p50.toFixed(0),
      "p95 ms": chain.p95.toFixed(0),
      "max ms": chain.max.toFixed(0),
      "p95 / baseline p50": "1.00",
      target: "-",
    },
    ...latency.map((entry) => ({
      "mined → OPEN seen (GET /intents/v1/intents/{orderId} polled, or GET /intents/v1/events)": entry.mode,
      n: entry.count,
      "p50 ms": entry.p50.toFixed(0),
      "p95 ms": entry.p95.toFixed(0),
      "max ms": entry.max.toFixed(0),
      "p95 / baseline p50": (entry.p95 / chain.p50).toFixed(2),
      target: `p95 ≤ ${entry.mode === "with notification hint" ? TARGETS.hintP95Ms : entry.mode === "event stream" ? TARGETS.eventP95Ms : TARGETS.followerP95Ms} ms`,
    })),
  ]);
  const throughputTable = table(
    throughput.map((entry) => ({
      [`backlog of ${BACKLOG} Opens`]: entry.measure,
      rounds: entry.values.length,
      "events/s (median)": entry.values.length === 0 ? "-" : Math.round(mid(entry.values)),
      spread: spread(entry.values),
      "ratio to node": entry.values.length === 0 ? "-" : (mid(entry.values) / source).toFixed(3),
      target: entry === throughput[0] ? "-" : `≥ ${TARGETS.eventsPerSecond}`,
    })),
  );
  process.stdout.write(`\nbench/intents — node ${process.version}, anvil 1 s blocks, ingestor poll 250 ms\n\n`);
  if (samples.length > 0) process.stdout.write(`${latencyTable}\n\n`);
  if (backlog.length > 0) process.stdout.write(`${throughputTable}\n\n`);

  const dir = join(repoRoot, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `intents-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ node: process.version, runtime: RUNTIME, orders: ORDERS, wallets: WALLETS, backlog: BACKLOG, targets: TARGETS, chain, latency, backlogRounds: backlog, sourceRate, samples }, null, 2)}\n`,
  );
  process.stdout.write(`figures written to ${file}\n`);
}
