import { type ChildProcess, fork } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ConsumedRecord } from "@platform/bus";

import { HolderGrouping } from "@platform/proto/data/v1/subnets";
import { TOPICS } from "@platform/proto/topics";
import { createRedis, type Redis } from "@platform/store";
import { startRedis, waitFor } from "@platform/testing";
import { getHoldersTop } from "../../../services/data-query/src/subnets/holders.js";
import { subnetsReads } from "../../../services/data-query/src/subnets/index.js";
import { getSubnetsLatest } from "../../../services/data-query/src/subnets/subnetsLatest.js";
import { kafkaPartitioner, sized } from "../../src/kafkaBatches.js";
import type { FromProjection, ProjectionName, ToProjection } from "./projectionProcess.js";
import type { BusRecord } from "./sourceClient.js";

/**
 * The read-model side of the scale bench. Every projection that reads chain.network.v1 (the
 * projector's accounts, market and subnets) folds the source's records into one real Redis, each
 * in a process of its own as in its own Deployment (projectionProcess.ts), as the projector's
 * consumers would get them from Kafka:
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

const FETCH_MAX_BYTES = 10 * 1024 * 1024;
const PARTITION_MAX_BYTES = 1024 * 1024;

export interface ReadFigures {
  name: string;
  bytes: number;
  baselinePerSecond: number;
  computed: { perSecond: number; p95Ms: number; ratio: number };
  kept: { perSecond: number; p95Ms: number; ratio: number };
}

/** A projection's process: one batch at a time, answered with its handleBatch's time. */
interface ProjectionProcess {
  name: ProjectionName;
  batch(batch: Extract<ToProjection, { type: "batch" }>["batch"]): Promise<number>;
  profile(name?: string): Promise<string | undefined>;
  stop(): Promise<void>;
}

async function startProjection(name: ProjectionName, redisUrl: string, logFile: string): Promise<ProjectionProcess> {
  const out = openSync(logFile, "a");
  const child: ChildProcess = fork(fileURLToPath(new URL("./projectionProcess.ts", import.meta.url)), [], {
    execArgv: ["--import", "tsx", "--conditions=@platform/source"],
    serialization: "advanced",
    stdio: ["ignore", out, out, "ipc"],
    env: { ...process.env, BENCH_SCALE_PROJECTION: JSON.stringify({ name, redisUrl }) },
  });
  closeSync(out);
  let nextId = 1;
  const waiting = new Map<number, { resolve(message: FromProjection): void; reject(error: Error): void }>();
  let readyResolve: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (readyResolve = resolve));
  child.on("message", (message: FromProjection) => {
    if (message.type === "ready") return readyResolve();
    const entry = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.type === "error") entry?.reject(new Error(`the ${name} projection failed: ${message.message}`));
    else entry?.resolve(message);
  });
  let exited = false;
  child.once("exit", (code, signal) => {
    exited = true;
    for (const entry of waiting.values())
      entry.reject(new Error(`the ${name} projection exited (${code ?? signal}); see ${logFile}`));
    waiting.clear();
  });
  const ask = (message: ToProjection & { id: number }) =>
    new Promise<FromProjection>((resolve, reject) => {
      if (exited) return reject(new Error(`the ${name} projection exited; see ${logFile}`));
      waiting.set(message.id, { resolve, reject });
      child.send(message);
    });
  await ready;
  return {
    name,
    async batch(batch) {
      const answer = await ask({ type: "batch", id: nextId++, batch });
      return answer.type === "done" ? answer.ms : 0;
    },
    async profile(profileName) {
      const answer = await ask({
        type: "profile",
        id: nextId++,
        ...(profileName === undefined ? {} : { name: profileName }),
      });
      return answer.type === "profiled" ? answer.profile : undefined;
    },
    async stop() {
      if (exited) return;
      const done = new Promise((resolve) => child.once("exit", resolve));
      child.send({ type: "stop" } satisfies ToProjection);
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await done;
      clearTimeout(timer);
    },
  };
}

export interface ReadModels {
  redis: Redis;
  /** Queues a step's records; `onCommitted` is called with its blocks once every projection committed them. */
  enqueue(records: readonly BusRecord[], blocks: readonly number[], onCommitted: (at: number) => void): void;
  /** Resolves once everything queued is committed. */
  idle(): Promise<void>;
  /** Time spent in each projection's handleBatch (its process's own clock) since the last reset. */
  projectMs: Record<string, number>;
  /** Without a name, starts profiling each projection process; with one, stops and writes <name>-<projection>.cpuprofile. */
  profile(name?: string): Promise<string[]>;
  usedMemoryMb(): Promise<number>;
  /** Redis memory by key family (digits and hex ids masked), largest first: MEMORY USAGE of every key. */
  memoryByFamily(top?: number): Promise<{ family: string; keys: number; mb: number }[]>;
  measureReads(seconds?: number): Promise<ReadFigures[]>;
  stop(): Promise<void>;
}

export async function startReadModels(dir: string): Promise<ReadModels> {
  const server = await startRedis({ dir: join(dir, "redis"), logFile: join(dir, "redis.log") });
  const connection = (name: string) =>
    createRedis({ url: server.url, connectionName: `bench-scale-${name}`, commandTimeoutMs: 300_000 });
  const redis = connection("reads");
  await waitFor(async () => redis.status === "ready", { what: "the bench's Redis connection" });
  const names: ProjectionName[] = ["accounts", "market", "subnets"];
  const projections = await Promise.all(
    names.map((name) => startProjection(name, server.url, join(dir, `projection-${name}.log`))),
  );
  const partitions = TOPICS.chainNetwork.partitions;
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
        projections.map(async (projection) => {
          const { name } = projection;
          for (const [partition, messages] of [...byPartition].sort((a, b) => a[0] - b[0])) {
            for (const batch of sized(messages, PARTITION_MAX_BYTES)) {
              const id = `${name}:${partition}`;
              const lastOffset = batch.at(-1)!.offset;
              const ms = await projection.batch({
                topic: TOPICS.chainNetwork.name,
                partition,
                messages: batch,
                lastOffset,
                previousOffset: committed.get(id),
              });
              projectMs[name] = (projectMs[name] ?? 0) + ms;
              committed.set(id, lastOffset);
            }
          }
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
    memoryByFamily: (top = 12) => memoryByFamily(redis, top),
    async profile(name) {
      const lines = await Promise.all(
        projections.map((projection) =>
          projection.profile(name === undefined ? undefined : `${name}-${projection.name}`),
        ),
      );
      return lines.flatMap((line, index) => (line === undefined ? [] : [`${projections[index]!.name}: ${line}`]));
    },
    async stop() {
      await Promise.all(projections.map((projection) => projection.stop().catch(() => undefined)));
      redis.disconnect();
      await server.stop();
    },
  };
}

async function memoryByFamily(redis: Redis, top: number): Promise<{ family: string; keys: number; mb: number }[]> {
  const families = new Map<string, { keys: number; bytes: number }>();
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "COUNT", 1_000);
    cursor = next;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.memory("USAGE", key);
    const sizes = (await pipeline.exec()) ?? [];
    keys.forEach((key, index) => {
      const family = key
        .replace(/0x[0-9a-f]+/gi, "<hex>")
        .replace(/[0-9a-zA-Z]{40,}/g, "<id>")
        .replace(/\d+/g, "<n>");
      const entry = families.get(family) ?? { keys: 0, bytes: 0 };
      entry.keys += 1;
      entry.bytes += Number(sizes[index]?.[1] ?? 0);
      families.set(family, entry);
    });
  } while (cursor !== "0");
  return [...families]
    .sort((a, b) => b[1].bytes - a[1].bytes)
    .slice(0, top)
    .map(([family, { keys, bytes }]) => ({ family, keys, mb: Math.round(bytes / 1e5) / 10 }));
}

async function measureReads(redis: Redis, seconds: number): Promise<ReadFigures[]> {
  const netuids = (await redis.smembers("rm:{data}:subnets:netuids")).map(Number).sort((a, b) => b - a);
  // The subnet with the most holders: the heaviest holders page.
  let busiest = netuids[0]!;
  let most = -1;
  for (const netuid of netuids) {
    const count = await redis.zcard(`rm:{data}:subnets:holders:${netuid}:positions`);
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
