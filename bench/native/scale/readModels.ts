import { createRequire } from "node:module";
import { Writable } from "node:stream";
import { join } from "node:path";
import type { ConsumedRecord, ProjectionBatch } from "@platform/bus";
import { defaultPartitions } from "@platform/bus";
import { createLogger } from "@platform/log";
import { HolderGrouping } from "@platform/proto/data/v1/subnets";
import { TOPICS } from "@platform/proto/topics";
import { createRedis, type Redis } from "@platform/store";
import { startRedis, waitFor } from "@platform/testing";
import { getHoldersTop } from "../../../services/data-query/src/subnets/holders.js";
import { subnetsReads } from "../../../services/data-query/src/subnets/index.js";
import { getSubnetsLatest } from "../../../services/data-query/src/subnets/subnetsLatest.js";
import { accountsProjection } from "../../../services/projector/src/accounts/projection.js";
import { marketProjection } from "../../../services/projector/src/market/projection.js";
import { subnetsProjection } from "../../../services/projector/src/subnets/projection.js";
import type { BusRecord } from "./sourceClient.js";

/**
 * The read-model side of the scale bench. Every projection that reads chain.network.v1 (the
 * projector's accounts, market and subnets) folds the source's records into one real Redis, as
 * the projector's consumers would get them from Kafka:
 * - each record goes to the partition kafkajs' default partitioner gives its key (6 partitions,
 *   the topic catalog's), with offsets counted per partition;
 * - what has arrived while the projections were busy is taken at once, up to a fetch's 10 MiB
 *   (kafkajs' `maxBytes`), and handed to each projection partition by partition, in batches of up
 *   to 1 MiB (`maxBytesPerPartition`); the three projections (three Deployments) side by side, a
 *   projection's partitions one after the other (kafkajs' default `partitionsConsumedConcurrently`).
 * A block counts as committed when every projection has committed the batch holding its last record.
 *
 * And the two heavy reads against their baseline: data-query's subnets/latest and holders/top
 * (page of 100, the subnet with most positions), computed on every call (what the first call after
 * each commit pays) and as SubnetsService serves them, kept while the projection's version stands
 * (shared/answerCache.ts), up to their wire bytes; the baseline is the same Redis answering one GET
 * of a payload the size of the answer.
 */

const log = createLogger({
  service: "bench-scale",
  level: "warn",
  destination: new Writable({ write: (_c, _e, callback) => callback() }),
});

const FETCH_MAX_BYTES = 10 * 1024 * 1024;
const PARTITION_MAX_BYTES = 1024 * 1024;

export interface ReadFigures {
  name: string;
  bytes: number;
  baselinePerSecond: number;
  computed: { perSecond: number; p95Ms: number; ratio: number };
  kept: { perSecond: number; p95Ms: number; ratio: number };
}

interface Projection {
  handleBatch(batch: ProjectionBatch): Promise<void>;
}

export interface ReadModels {
  redis: Redis;
  /** Queues a step's records; `onCommitted` is called with its blocks once every projection committed them. */
  enqueue(records: readonly BusRecord[], blocks: readonly number[], onCommitted: (at: number) => void): void;
  /** Resolves once everything queued is committed. */
  idle(): Promise<void>;
  /** Time spent in the projections (wall, per projection) since the last reset. */
  projectMs: Record<string, number>;
  usedMemoryMb(): Promise<number>;
  measureReads(seconds?: number): Promise<ReadFigures[]>;
  stop(): Promise<void>;
}

export async function startReadModels(dir: string): Promise<ReadModels> {
  const server = await startRedis({ dir: join(dir, "redis"), logFile: join(dir, "redis.log") });
  const connection = (name: string) =>
    createRedis({ url: server.url, connectionName: `bench-scale-${name}`, commandTimeoutMs: 300_000 });
  const redis = connection("reads");
  // A connection each: the accounts projection WATCHes its offset on its own connection.
  const projectionRedis = {
    accounts: connection("accounts"),
    market: connection("market"),
    subnets: connection("subnets"),
  };
  await waitFor(async () => [redis, ...Object.values(projectionRedis)].every((client) => client.status === "ready"), {
    what: "the bench's Redis connections",
  });
  const projections: Record<string, Projection> = {
    accounts: accountsProjection({ redis: projectionRedis.accounts, log }),
    market: marketProjection({ redis: projectionRedis.market, log }),
    subnets: subnetsProjection({ redis: projectionRedis.subnets, log }),
  };
  const partitions = defaultPartitions["chain.network.v1"];
  const partitionOf = kafkaPartitioner(partitions);
  const nextOffset = new Array<number>(partitions).fill(0);
  /** Per projection and partition, the last offset committed. */
  const committed = new Map<string, string>();
  const queue: { messages: ConsumedRecord[]; bytes: number; onCommitted: (at: number) => void }[] = [];
  const projectMs: Record<string, number> = { accounts: 0, market: 0, subnets: 0 };
  let running: Promise<void> | undefined;
  let failure: unknown;

  const drain = async () => {
    while (queue.length > 0) {
      // One fetch: what has arrived, up to FETCH_MAX_BYTES (at least one step).
      let bytes = 0;
      let take = 0;
      while (take < queue.length && (take === 0 || bytes + queue[take]!.bytes <= FETCH_MAX_BYTES)) {
        bytes += queue[take]!.bytes;
        take++;
      }
      const taken = queue.splice(0, take);
      const byPartition = new Map<number, ConsumedRecord[]>();
      for (const step of taken)
        for (const message of step.messages) {
          const list = byPartition.get(message.partition) ?? [];
          list.push(message);
          byPartition.set(message.partition, list);
        }
      await Promise.all(
        Object.entries(projections).map(async ([name, projection]) => {
          const started = performance.now();
          for (const [partition, messages] of [...byPartition].sort((a, b) => a[0] - b[0])) {
            for (const batch of sized(messages, PARTITION_MAX_BYTES)) {
              const id = `${name}:${partition}`;
              const lastOffset = batch.at(-1)!.offset;
              await projection.handleBatch({
                topic: TOPICS.chainNetwork.name,
                partition,
                messages: batch,
                lastOffset,
                previousOffset: committed.get(id),
                heartbeat: async () => undefined,
              });
              committed.set(id, lastOffset);
            }
          }
          projectMs[name] = (projectMs[name] ?? 0) + performance.now() - started;
        }),
      );
      const at = performance.now();
      for (const step of taken) step.onCommitted(at);
    }
  };

  return {
    redis,
    projectMs,
    enqueue(records, _blocks, onCommitted) {
      if (failure !== undefined) throw failure;
      const now = String(Date.now());
      let bytes = 0;
      const messages = records.map((record): ConsumedRecord => {
        const partition = partitionOf(record.key);
        const offset = String(nextOffset[partition]!++);
        bytes += record.value.byteLength + record.key.length;
        return {
          topic: TOPICS.chainNetwork.name,
          partition,
          offset,
          timestamp: now,
          key: record.key,
          value: Buffer.from(record.value.buffer, record.value.byteOffset, record.value.byteLength),
          eventId: record.eventId,
          eventType: record.eventType,
          schema: TOPICS.chainNetwork.schema,
          traceparent: undefined,
          tracestate: undefined,
          headers: {},
        };
      });
      queue.push({ messages, bytes, onCommitted });
      running ??= drain()
        .catch((error: unknown) => {
          failure = error;
        })
        .finally(() => {
          running = undefined;
        });
    },
    async idle() {
      while (running !== undefined) await running;
      if (failure !== undefined) throw failure;
    },
    async usedMemoryMb() {
      return Number(/used_memory:(\d+)/.exec(await redis.info("memory"))?.[1] ?? 0) / 1e6;
    },
    measureReads: (seconds = 5) => measureReads(redis, seconds),
    async stop() {
      for (const client of [redis, ...Object.values(projectionRedis)]) client.disconnect();
      await server.stop();
    },
  };
}

/** kafkajs' DefaultPartitioner (murmur2 of the key, as the publishers' producer), from @platform/bus's kafkajs. */
function kafkaPartitioner(partitions: number): (key: string) => number {
  const require = createRequire(new URL("../../../libs/bus/package.json", import.meta.url));
  const kafkajs = require("kafkajs") as {
    Partitioners: {
      DefaultPartitioner(): (args: {
        topic: string;
        partitionMetadata: unknown[];
        message: { key: string; value: null };
      }) => number;
    };
  };
  const partitioner = kafkajs.Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    replicas: [0],
    isr: [0],
    partitionErrorCode: 0,
    offlineReplicas: [],
  }));
  const known = new Map<string, number>();
  return (key) => {
    let partition = known.get(key);
    if (partition === undefined) {
      partition = partitioner({ topic: TOPICS.chainNetwork.name, partitionMetadata, message: { key, value: null } });
      if (known.size < 1_000_000) known.set(key, partition);
    }
    return partition;
  };
}

/** Consecutive batches of at most `maxBytes` (at least one record each). */
function* sized(messages: readonly ConsumedRecord[], maxBytes: number): Generator<ConsumedRecord[]> {
  let batch: ConsumedRecord[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = (message.value?.byteLength ?? 0) + (message.key?.length ?? 0);
    if (batch.length > 0 && bytes + size > maxBytes) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(message);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}

async function measureReads(redis: Redis, seconds: number): Promise<ReadFigures[]> {
  const netuids = (await redis.smembers("rm:subnets:netuids")).map(Number).sort((a, b) => b - a);
  // The subnet with the most holders: the heaviest holders page.
  let busiest = netuids[0]!;
  let most = -1;
  for (const netuid of netuids) {
    const count = await redis.zcard(`rm:subnets:holders:${netuid}:positions`);
    if (count > most) [busiest, most] = [netuid, count];
  }
  const service = subnetsReads({ redis, answerCacheMaxBytes: 64 * 1024 * 1024 });
  const wire = (method: "getSubnetsLatest" | "getHoldersTop") =>
    service.definition[method]!.responseSerialize as (answer: unknown) => Buffer;
  const subnetsRequest = { netuids: [], sort: 0, order: 0, page: { limit: 256, cursor: "" } };
  const holdersRequest = {
    netuid: busiest,
    groupBy: HolderGrouping.HOLDER_GROUPING_COLDKEY,
    page: { limit: 100, cursor: "" },
  };
  return [
    await measure(
      redis,
      "subnets/latest (every subnet)",
      {
        computed: () => getSubnetsLatest(redis, subnetsRequest),
        kept: async () => wire("getSubnetsLatest")(await service.getSubnetsLatest(subnetsRequest)),
      },
      seconds,
    ),
    await measure(
      redis,
      `holders/top page of 100 (subnet ${busiest}, ${most.toLocaleString("en")} positions)`,
      {
        computed: () => getHoldersTop(redis, holdersRequest),
        kept: async () => wire("getHoldersTop")(await service.getHoldersTop(holdersRequest)),
      },
      seconds,
    ),
  ];
}

/** Closed-loop reads, 16 in flight, for `seconds` each; the baseline is a GET of a value of the answer's size, same concurrency. */
async function measure(
  redis: Redis,
  name: string,
  read: { computed: () => Promise<unknown>; kept: () => Promise<unknown> },
  seconds: number,
): Promise<ReadFigures> {
  const answer = await read.computed();
  const bytes = Buffer.byteLength(
    JSON.stringify(answer, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value)),
  );
  await redis.set("bench:baseline", "x".repeat(bytes));
  const run = async (call: () => Promise<unknown>) => {
    const latencies: number[] = [];
    const until = performance.now() + seconds * 1_000;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (performance.now() < until) {
          const started = performance.now();
          await call();
          latencies.push(performance.now() - started);
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    return { perSecond: latencies.length / seconds, p95Ms: latencies[Math.floor(latencies.length * 0.95)] ?? 0 };
  };
  const baseline = await run(() => redis.getBuffer("bench:baseline"));
  const computed = await run(read.computed);
  const kept = await run(read.kept);
  return {
    name,
    bytes,
    baselinePerSecond: baseline.perSecond,
    computed: { ...computed, ratio: computed.perSecond / baseline.perSecond },
    kept: { ...kept, ratio: kept.perSecond / baseline.perSecond },
  };
}
