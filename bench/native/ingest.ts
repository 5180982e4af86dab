/**
 * bench/native: how fast the chain-ingestor's native source works off a recorded backlog of dense
 * blocks (≥ 100 runtime events each, with a runtime upgrade in the middle), against a baseline that
 * only fetches the same blocks' data over the same kind of connection; and how soon a block built
 * on the local chain is published (its BlockSeen committed in Kafka, read with read_committed).
 *
 *   pnpm bench:native
 *
 * Knobs: BENCH_NATIVE_BLOCKS (60), BENCH_NATIVE_TRANSFERS (20 a block), BENCH_NATIVE_ROUNDS (3),
 * BENCH_NATIVE_LATENCY_BLOCKS (30). The figures also go to bench/results/native-<time>.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createKafkaClient, ensureTopics, type Kafka } from "@platform/bus";
import { substrateNetworkSchema } from "@platform/chain";
import { createLogger } from "@platform/log";
import { CheckpointEvent } from "@platform/proto/events/v1/ingestor_checkpoints";
import { decodePayload, TOPICS } from "@platform/proto/topics";
import { startKafka, tempDir } from "@platform/testing";
import { LegacyClient, QueryableStorage, WsProvider } from "dedot";
import { startNativeIngestor } from "../../services/chain-ingestor/src/native/source/ingestor.js";
import { type Backlog, buildBacklog, SYSTEM_EVENTS_KEY } from "../native-clients/chain.js";
import { accountStorageKeys } from "../native-clients/fetchRaw.js";
import { median } from "../native-clients/measure.js";
import { RawRpc } from "../native-clients/rawRpc.js";

const numberFromEnv = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number`);
  return value;
};
const BLOCKS = numberFromEnv("BENCH_NATIVE_BLOCKS", 60);
const TRANSFERS = numberFromEnv("BENCH_NATIVE_TRANSFERS", 20);
const ROUNDS = numberFromEnv("BENCH_NATIVE_ROUNDS", 3);
const LATENCY_BLOCKS = numberFromEnv("BENCH_NATIVE_LATENCY_BLOCKS", 30);
const TARGETS = { blocksPerSecond: 50, latencyP95Ms: 2_000 };
/** twox128("Timestamp") ++ twox128("Now"). */
const TIMESTAMP_NOW_KEY = "0xf0c365c3cf59d671eb72da0e7a4113c49f1f0515f462cdcf84e0f1d6045dfcbb";
const CONCURRENCY = 8;

const say = (line: string) => process.stdout.write(`${line}\n`);
const silent = process.env.BENCH_LOG_LEVEL
  ? createLogger({ service: "bench-native", level: process.env.BENCH_LOG_LEVEL as "debug" })
  : createLogger({
      service: "bench-native",
      level: "warn",
      destination: new Writable({ write: (_c, _e, callback) => callback() }),
    });
const dir = tempDir("bench-native");

say(
  `recording a backlog of ${BLOCKS} blocks with ${TRANSFERS} transfers each (chopsticks, spec 218 with an upgrade from 204 midway)…`,
);
const backlog = await buildBacklog({ blocks: BLOCKS, transfersPerBlock: TRANSFERS, log: (line) => say(`  ${line}`) });
const kafkaServer = await startKafka({ dataDir: join(dir.path, "kafka"), logFile: join(dir.path, "kafka.log") });
const kafka = createKafkaClient({ brokers: kafkaServer.brokers, clientId: "bench-native", logger: silent });
try {
  // The sources create their topics too; the readers below subscribe before a source runs.
  const topics = ensureTopics(kafka, {
    topics: ["chain.network.v1", "ingestor.checkpoints.v1"],
    replicationFactor: 1,
    logger: silent,
  });
  while (!topics.ready()) await new Promise((resolve) => setTimeout(resolve, 100));
  topics.stop();
  const first = backlog.blocks[0]!.number;
  const last = backlog.blocks.at(-1)!.number;
  const events = backlog.blocks.reduce((sum, block) => sum + block.events, 0);
  say(
    `backlog: blocks ${first}–${last}, ${events} events (${Math.round(events / backlog.blocks.length)} a block), built in ${(backlog.buildMs / 1000).toFixed(0)} s`,
  );

  const fetchMs: number[] = [];
  const rounds: IngestTiming[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    fetchMs.push(await fetchOnly(backlog));
    const timing = await ingestRound(kafka, backlog, round);
    rounds.push(timing);
    say(
      `round ${round}: fetch only ${fetchMs.at(-1)!.toFixed(0)} ms; ingest ${timing.totalMs.toFixed(0)} ms (start ${timing.startupMs.toFixed(0)} ms, then ${timing.steadyBlocks} blocks in ${timing.steadyMs.toFixed(0)} ms over ${timing.steps} steps)`,
    );
  }
  const steadyRates = rounds.map((timing) => (timing.steadyBlocks * 1000) / timing.steadyMs);
  const decodeMs = await decodeOnly(backlog);
  const latency = await latencyRun(kafka, backlog);

  const blocks = backlog.blocks.length;
  const fetchMedian = median(fetchMs);
  const ingestMedian = median(rounds.map((timing) => timing.totalMs));
  const steadyBlocksPerSecond = median(steadyRates);
  const figures = {
    machine: "2 cores",
    backlog: { blocks, events, eventsPerBlock: events / blocks, runtimes: backlog.runtimes },
    fetchOnly: {
      ms: fetchMedian,
      blocksPerSecond: (blocks * 1000) / fetchMedian,
      eventsPerSecond: (events * 1000) / fetchMedian,
    },
    ingest: {
      ms: ingestMedian,
      startupMs: median(rounds.map((timing) => timing.startupMs)),
      blocksPerSecond: steadyBlocksPerSecond,
      eventsPerSecond: steadyBlocksPerSecond * (events / blocks),
      wholeRunBlocksPerSecond: (blocks * 1000) / ingestMedian,
      ratio: steadyBlocksPerSecond / ((blocks * 1000) / fetchMedian),
    },
    // Per block: decoding a block's events, against the source's whole work per block in its steady run.
    decodeShare: decodeMs / blocks / (1000 / steadyBlocksPerSecond),
    decodeMs,
    latency,
    targets: TARGETS,
  };
  say("");
  say("| measure | blocks/s | events/s | ratio to fetch only |");
  say("|---|---|---|---|");
  say(
    `| fetch only (baseline: the same RPC reads, no decoding, no Kafka) | ${figures.fetchOnly.blocksPerSecond.toFixed(1)} | ${figures.fetchOnly.eventsPerSecond.toFixed(0)} | 1.00 |`,
  );
  say(
    `| native source: read, decode, balances and positions, publish with checkpoints | ${figures.ingest.blocksPerSecond.toFixed(1)} | ${figures.ingest.eventsPerSecond.toFixed(0)} | ${figures.ingest.ratio.toFixed(2)} (target ≥ ${TARGETS.blocksPerSecond} blocks/s: ${figures.ingest.blocksPerSecond >= TARGETS.blocksPerSecond ? "met" : "not met"}) |`,
  );
  say(
    `(whole run including the source's start, ${figures.ingest.startupMs.toFixed(0)} ms: ${figures.ingest.wholeRunBlocksPerSecond.toFixed(1)} blocks/s)`,
  );
  say(
    `decode share: events of every block decoded by dedot from their bytes in ${decodeMs.toFixed(0)} ms, ${(figures.decodeShare * 100).toFixed(1)} % of the source's time per block`,
  );
  say(
    `block built → published (BlockSeen committed in Kafka), ${latency.samples} blocks: p50 ${latency.p50Ms.toFixed(0)} ms, p95 ${latency.p95Ms.toFixed(0)} ms (target p95 ≤ ${TARGETS.latencyP95Ms} ms: ${latency.p95Ms <= TARGETS.latencyP95Ms ? "met" : "not met"})`,
  );
  const resultsDir = new URL("../results/", import.meta.url);
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(
    new URL(`native-${new Date().toISOString().replace(/[:.]/g, "-")}.json`, resultsDir),
    `${JSON.stringify(figures, null, 2)}\n`,
  );
} finally {
  await backlog.stop();
  await kafkaServer.stop();
  dir.remove();
}

/**
 * What the source reads per block, fetched and not decoded: the block hash, header, timestamp, the
 * runtime version of its parent (dedot's `at`), System.Events, the body, and System.Account of the
 * accounts a backlog block touches (the 50 tracked accounts). Same concurrency as the source.
 */
async function fetchOnly(recorded: Backlog): Promise<number> {
  const rpc = await RawRpc.connect(recorded.node.rpcUrl);
  const keys = await accountStorageKeys(recorded.accounts);
  const started = performance.now();
  await forEach(recorded.blocks, async (block) => {
    const hash = await rpc.request<string>("chain_getBlockHash", [block.number]);
    const header = await rpc.request<{ parentHash: string }>("chain_getHeader", [hash]);
    await Promise.all([
      rpc.request("state_getStorage", [TIMESTAMP_NOW_KEY, hash]),
      rpc.request("state_getRuntimeVersion", [header.parentHash]),
      rpc.request("state_getStorage", [SYSTEM_EVENTS_KEY, hash]),
      rpc.request("chain_getBlock", [hash]),
      rpc.request("state_queryStorageAt", [keys, hash]),
    ]);
  });
  const elapsed = performance.now() - started;
  await rpc.close();
  return elapsed;
}

/**
 * A fresh native source (its own checkpoint and transactional id) from the backlog's first block
 * until its checkpoint holds the last. Its start (connecting, metadata, the Kafka producer, reading
 * the checkpoint) is timed apart from the work: throughput is measured from its first committed
 * step to its last.
 */
async function ingestRound(client: Kafka, recorded: Backlog, round: number): Promise<IngestTiming> {
  const network = substrateNetworkSchema.parse({
    name: `bench-${round}`,
    chainId: 9_000 + round,
    rpcUrl: recorded.node.rpcUrl,
    blockTimeMs: 12_000,
    finality: { safeDepth: 1, finalizedDepth: 3 },
    rpc: { timeoutMs: 30_000 },
  });
  const firstBlock = recorded.blocks[0]!.number;
  const target = BigInt(recorded.blocks.at(-1)!.number);
  const watching = watchCheckpoints(client, `${network.chainId}:native`, target);
  await watching.ready;
  const started = performance.now();
  const ingestor = startNativeIngestor({
    kafka: client,
    network,
    pollIntervalMs: 50,
    maxBlocksPerBatch: 100,
    replicationFactor: 1,
    log: silent,
    onFenced: () => undefined,
    startBlock: BigInt(firstBlock),
  });
  try {
    const arrivals = await watching.done;
    const first = arrivals[0]!;
    const last = arrivals.at(-1)!;
    return {
      totalMs: last.at - started,
      startupMs: first.at - started,
      steadyBlocks: Number(last.block - first.block),
      steadyMs: last.at - first.at,
      steps: arrivals.length,
    };
  } finally {
    await ingestor.stop();
  }
}

interface IngestTiming {
  totalMs: number;
  /** Until the first step was committed (connection, metadata, producer, checkpoint read, first range). */
  startupMs: number;
  /** Blocks committed after the first step, and the time they took. */
  steadyBlocks: number;
  steadyMs: number;
  steps: number;
}

/** Each checkpoint of the source as it is committed (read_committed), until one holds `target`. */
function watchCheckpoints(
  client: Kafka,
  sourceId: string,
  target: bigint,
): { ready: Promise<void>; done: Promise<{ block: bigint; at: number }[]> } {
  const consumer = client.consumer({
    groupId: `bench-native-checkpoints-${sourceId}-${Date.now()}`,
    maxWaitTimeInMs: 10,
    readUncommitted: false,
  });
  const arrivals: { block: bigint; at: number }[] = [];
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const ready = (async () => {
    await consumer.connect();
    await consumer.subscribe({ topics: [TOPICS.ingestorCheckpoints.name], fromBeginning: false });
    let joined: () => void = () => undefined;
    const hasJoined = new Promise<void>((resolve) => (joined = resolve));
    consumer.on(consumer.events.GROUP_JOIN, () => joined());
    await consumer.run({
      eachMessage: async ({ message }) => {
        if (message.key?.toString() !== sourceId) return;
        const checkpoint = CheckpointEvent.decode(message.value!).event?.value;
        if (checkpoint === undefined) return;
        arrivals.push({ block: BigInt(checkpoint.blockNumber), at: performance.now() });
        if (BigInt(checkpoint.blockNumber) >= target) finish();
      },
    });
    await hasJoined;
  })();
  const done = (async () => {
    await finished;
    await consumer.disconnect();
    return arrivals;
  })();
  return { ready, done };
}

/**
 * The decoding alone: every backlog block's System.Events bytes (fetched first) decoded by dedot with
 * the registry of the block's own runtime, as the source's `client.at(hash)` does.
 */
async function decodeOnly(recorded: Backlog): Promise<number> {
  const client = await LegacyClient.new(new WsProvider(recorded.node.rpcUrl));
  try {
    const blocks = [];
    for (const block of recorded.blocks) {
      const at = await client.at(block.hash as `0x${string}`);
      const bytes = (await client.rpc.state_getStorage(
        SYSTEM_EVENTS_KEY,
        block.hash as `0x${string}`,
      )) as `0x${string}`;
      blocks.push({ storage: new QueryableStorage(at.registry, "System", "Events"), bytes });
    }
    const started = performance.now();
    for (const block of blocks) block.storage.decodeValue(block.bytes);
    return performance.now() - started;
  } finally {
    await client.disconnect();
  }
}

/** Follows the chain live and times each new block from the end of its build until its BlockSeen is committed in Kafka. */
async function latencyRun(
  client: Kafka,
  recorded: Backlog,
): Promise<{ samples: number; p50Ms: number; p95Ms: number }> {
  const network = substrateNetworkSchema.parse({
    name: "bench-latency",
    chainId: 9_100,
    rpcUrl: recorded.node.rpcUrl,
    blockTimeMs: 2_000,
    finality: { safeDepth: 1, finalizedDepth: 3 },
  });
  const ingestor = startNativeIngestor({
    kafka: client,
    network,
    pollIntervalMs: 500,
    maxBlocksPerBatch: 100,
    replicationFactor: 1,
    log: silent,
    onFenced: () => undefined,
    startBlock: BigInt(recorded.blocks.at(-1)!.number),
  });
  const seen = new Map<string, number>();
  const consumer = client.consumer({
    groupId: `bench-native-latency-${Date.now()}`,
    maxWaitTimeInMs: 20,
    readUncommitted: false,
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [TOPICS.chainNetwork.name], fromBeginning: false });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const event = decodePayload(TOPICS.chainNetwork, message.value!).event;
      if (
        event?.$case === "blockSeen" &&
        event.value.ref?.chainId === String(network.chainId) &&
        !seen.has(event.value.ref.blockHash)
      )
        seen.set(event.value.ref.blockHash, performance.now());
    },
  });
  const dedot = await LegacyClient.new(new WsProvider(recorded.node.rpcUrl));
  try {
    await waitForCheckpoint(client, `${network.chainId}:native`, BigInt(recorded.blocks.at(-1)!.number));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const latencies: number[] = [];
    for (let index = 0; index < LATENCY_BLOCKS; index++) {
      const hash = await recorded.node.newBlocks(1);
      const built = performance.now();
      const deadline = built + 10_000;
      while (!seen.has(hash) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      latencies.push((seen.get(hash) ?? deadline) - built);
      // Blocks a real chain builds apart: about its block time, here 1 s between builds.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    latencies.sort((a, b) => a - b);
    return {
      samples: latencies.length,
      p50Ms: latencies[Math.floor(latencies.length * 0.5)]!,
      p95Ms: latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * 0.95) - 1)]!,
    };
  } finally {
    await dedot.disconnect();
    await consumer.disconnect();
    await ingestor.stop();
  }
}

async function waitForCheckpoint(client: Kafka, sourceId: string, target: bigint): Promise<void> {
  const consumer = client.consumer({
    groupId: `bench-native-checkpoints-${sourceId}-${Date.now()}`,
    maxWaitTimeInMs: 20,
    readUncommitted: false,
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [TOPICS.ingestorCheckpoints.name], fromBeginning: true });
  await new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: async ({ message }) => {
        if (message.key?.toString() !== sourceId) return;
        const checkpoint = CheckpointEvent.decode(message.value!).event?.value;
        if (checkpoint !== undefined && BigInt(checkpoint.blockNumber) >= target) resolve();
      },
    });
  });
  await consumer.disconnect();
}

async function forEach<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}
