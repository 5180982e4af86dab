/**
 * The scale bench's source process: the chain-ingestor's native source as the
 * chain-ingestor-native Deployment runs it, in a process of its own, so its memory is its own —
 * `connectNativeChain`, `nativeBlockSource` and the follower (`createBlockFollower`, the window and
 * step sizes of the service), with the step's records built by `commitNetworkRecords` (protobuf
 * payloads, as they go to Kafka). Instead of a Kafka transaction, each step's chain.network.v1
 * records go to the parent (scale.ts) over IPC, where the projections fold them.
 *
 * Started by sourceClient.ts (`fork`, advanced serialization, `--expose-gc`); configuration in
 * BENCH_SCALE_SOURCE_CONFIG. Messages: sourceClient.ts.
 */
import { readFileSync } from "node:fs";
import { substrateNetworkSchema } from "@platform/chain";
import { TOPICS } from "@platform/proto/topics";
import { createBlockFollower } from "../../../services/chain-ingestor/src/follower/blockFollower.js";
import type { BlockHeader } from "../../../services/chain-ingestor/src/follower/blocks.js";
import { connectNativeChain } from "../../../services/chain-ingestor/src/native/node/chainReader.js";
import { commitNetworkRecords } from "../../../services/chain-ingestor/src/native/records/commitNetworkRecords.js";
import { publishedOnly } from "../../../services/chain-ingestor/src/native/records/networkRecord.js";
import { nativeBlockSource } from "../../../services/chain-ingestor/src/native/source/blockSource.js";
import { nativeHeaderReader } from "../../../services/chain-ingestor/src/native/source/headerReader.js";
import { startProfiler } from "./profile.js";
import type { FromSource, MemorySample, SourceConfig, ToSource } from "./sourceClient.js";
import { ReadTimes, timedReader } from "./timedReader.js";

const config = JSON.parse(process.env.BENCH_SCALE_SOURCE_CONFIG ?? "{}") as SourceConfig;
const send = (message: FromSource) =>
  new Promise<void>((resolve, reject) =>
    process.send!(message, (error: Error | null) => (error ? reject(error) : resolve())),
  );

function memorySample(): MemorySample {
  const usage = process.memoryUsage();
  const status = readFileSync("/proc/self/status", "utf8");
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0) * 1024;
  return {
    at: Date.now(),
    heapUsed: usage.heapUsed,
    heapTotal: usage.heapTotal,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    rss: usage.rss,
    rssPeak: kb("VmHWM"),
  };
}

const network = substrateNetworkSchema.parse({
  name: "bench-scale",
  chainId: 945,
  rpcUrl: config.rpcUrl,
  blockTimeMs: 12_000,
  // As the production chains file has Finney's.
  finality: { safeDepth: 2, finalizedDepth: 3 },
  rpc: { timeoutMs: 300_000, retryCount: 1, retryDelayMs: 100 },
});
const sourceId = `${network.chainId}:native`;
const reader = await connectNativeChain(network);
const readTimes = new ReadTimes();
const timed = timedReader(reader, readTimes);
const headers = nativeHeaderReader(timed);
const source = nativeBlockSource({ reader: timed, network, finalizedHead: headers.finalizedHead });
/** How long each range's readBlocks took, by its first block (ranges are read ahead during commits). */
const readMsByRange = new Map<string, number>();
const timedSource = {
  async readBlocks(blockHeaders: readonly BlockHeader[], latest: bigint) {
    const started = performance.now();
    const read = await source.readBlocks(blockHeaders, latest);
    readMsByRange.set(String(blockHeaders[0]!.number), performance.now() - started);
    return read;
  },
};
let followId = 0;
const follower = createBlockFollower({
  headers,
  source: timedSource,
  // The service's: the finalized depth plus a margin of 16, NATIVE_MAX_BLOCKS_PER_BATCH's 100.
  windowSize: network.finality.finalizedDepth + 16,
  maxBlocksPerStep: config.maxBlocksPerStep,
  window: [],
  // As source.ts: the window keeps what a removal names, not the payloads.
  windowEvent: publishedOnly,
  startBlock: BigInt(config.startBlock),
  async commit(step) {
    const encodeStarted = performance.now();
    const records = commitNetworkRecords(step, { chainId: network.chainId, sourceId, now: new Date() }).filter(
      (record) => record.topic === TOPICS.chainNetwork.name,
    );
    const encodeMs = performance.now() - encodeStarted;
    const first = step.blocks[0]?.header.number;
    const readMs = first === undefined ? 0 : (readMsByRange.get(String(first)) ?? 0);
    if (first !== undefined) readMsByRange.delete(String(first));
    const reads = readTimes.table().slice(0, 12);
    readTimes.reset();
    await send({
      type: "commit",
      id: followId,
      blocks: step.blocks.map((block) => Number(block.header.number)),
      readMs,
      encodeMs,
      sentAt: Date.now(),
      reads,
      records: records.map((record) => ({
        key: record.key,
        value: record.value,
        eventType: record.eventType,
        eventId: record.eventId,
      })),
    });
  },
});

const sampler = setInterval(() => void send({ type: "sample", sample: memorySample() }).catch(() => undefined), 1_000);

process.on("message", (message: ToSource) => {
  void handle(message).catch((error: unknown) => {
    void send({ type: "error", message: (error as Error).stack ?? String(error) }).finally(() => process.exit(1));
  });
});
await send({ type: "ready", sample: memorySample() });

let profiler: Awaited<ReturnType<typeof startProfiler>> | undefined;

async function handle(message: ToSource): Promise<void> {
  switch (message.type) {
    case "follow": {
      followId = message.id;
      const profiler = message.profile === undefined ? undefined : await startProfiler();
      const started = performance.now();
      let marked = message.gcAt === undefined;
      let steps = 0;
      while ((follower.tip()?.number ?? -1n) < BigInt(message.until)) {
        const outcome = await follower.step();
        steps++;
        if (outcome.kind === "reorganised") throw new Error(`unexpected reorganisation at ${outcome.ancestor}`);
        if (outcome.kind === "idle") await new Promise((resolve) => setTimeout(resolve, 20));
        if (!marked && (follower.tip()?.number ?? -1n) >= BigInt(message.gcAt!)) {
          marked = true;
          globalThis.gc?.();
          await send({ type: "memory", id: message.id, label: "warm", sample: memorySample() });
        }
      }
      const ms = performance.now() - started;
      const profile = profiler === undefined ? undefined : await profiler.stop(message.profile!);
      await send({ type: "followed", id: message.id, ms, steps, ...(profile === undefined ? {} : { profile }) });
      return;
    }
    case "memory": {
      if (message.gc) globalThis.gc?.();
      await send({ type: "memory", id: message.id, label: message.label, sample: memorySample() });
      return;
    }
    case "profile": {
      if (message.name === undefined) {
        profiler = await startProfiler();
        await send({ type: "profiled", id: message.id });
      } else {
        const profile = await profiler?.stop(message.name);
        profiler = undefined;
        await send({ type: "profiled", id: message.id, ...(profile === undefined ? {} : { profile }) });
      }
      return;
    }
    case "heap-snapshot": {
      globalThis.gc?.();
      const { writeHeapSnapshot } = await import("node:v8");
      const path = writeHeapSnapshot(`${message.dir}/source-${Date.now()}.heapsnapshot`);
      await send({ type: "profiled", id: message.id, profile: path });
      return;
    }
    case "stop": {
      clearInterval(sampler);
      await reader.close().catch(() => undefined);
      process.exit(0);
    }
  }
}
