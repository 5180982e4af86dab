import { Writable } from "node:stream";
import { join } from "node:path";
import type { ConsumedRecord } from "@platform/bus";
import { createLogger } from "@platform/log";
import { HolderGrouping } from "@platform/proto/data/v1/subnets";
import { NetworkChainEvent } from "@platform/proto/events/v1/chain_network";
import { TOPICS } from "@platform/proto/topics";
import { createRedis, type Redis } from "@platform/store";
import { startRedis, waitFor } from "@platform/testing";
import { getHoldersTop } from "../../../services/data-query/src/subnets/holders.js";
import { subnetsReads } from "../../../services/data-query/src/subnets/index.js";
import { getSubnetsLatest } from "../../../services/data-query/src/subnets/subnetsLatest.js";
import { marketProjection } from "../../../services/projector/src/market/projection.js";
import { subnetsProjection } from "../../../services/projector/src/subnets/projection.js";

/**
 * The read-model side of the scale bench: the full snapshot's records folded by the projector's own
 * market and subnets projections into a real Redis (as the projector would, a partition's records
 * in offset order, in batches), its memory, and how fast data-query answers the two heavy reads on
 * that state, against a baseline of the same Redis answering one GET of a payload the size of the
 * answer (what any read of that size costs at the least). Each read twice: computed on every call
 * (data-query's function; what the first call after each commit pays), and as the SubnetsService
 * serves it, kept while the projection's version stands (shared/answerCache.ts), up to its wire
 * bytes (the version's GET, the lookup, the kept bytes; the service's marker check leaves in the
 * same socket write as the version's GET and is not counted).
 */

const log = createLogger({
  service: "bench-scale",
  level: "warn",
  destination: new Writable({ write: (_c, _e, callback) => callback() }),
});

export interface ReadModelFigures {
  records: number;
  projectMs: number;
  usedMemoryMb: number;
  reads: {
    name: string;
    bytes: number;
    baselinePerSecond: number;
    computed: { perSecond: number; p95Ms: number; ratio: number };
    kept: { perSecond: number; p95Ms: number; ratio: number };
  }[];
}

export async function measureReadModels(
  records: readonly { key: string; eventType: string; payload: NetworkChainEvent }[],
  dir: string,
  seconds = 5,
): Promise<ReadModelFigures> {
  const server = await startRedis({ dir: join(dir, "redis"), logFile: join(dir, "redis.log") });
  const redis = createRedis({ url: server.url, connectionName: "bench-scale", commandTimeoutMs: 120_000 });
  try {
    await waitFor(async () => redis.status === "ready", { what: "the bench's Redis connection" });
    const started = performance.now();
    await project(redis, records);
    const projectMs = performance.now() - started;
    const usedMemoryMb = Number(/used_memory:(\d+)/.exec(await redis.info("memory"))?.[1] ?? 0) / 1e6;
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
    const reads = [
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
    return { records: records.length, projectMs, usedMemoryMb, reads };
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

async function project(
  redis: Redis,
  records: readonly { key: string; eventType: string; payload: NetworkChainEvent }[],
): Promise<void> {
  const messages: ConsumedRecord[] = records.map((record, offset) => ({
    topic: TOPICS.chainNetwork.name,
    partition: 0,
    offset: String(offset),
    timestamp: "0",
    key: record.key,
    value: Buffer.from(NetworkChainEvent.encode(record.payload).finish()),
    eventId: undefined,
    eventType: record.eventType,
    schema: undefined,
    traceparent: undefined,
    tracestate: undefined,
    headers: {},
  }));
  for (const projection of [marketProjection({ redis, log }), subnetsProjection({ redis, log })]) {
    for (let at = 0; at < messages.length; at += 500) {
      const batch = messages.slice(at, at + 500);
      await projection.handleBatch({
        topic: TOPICS.chainNetwork.name,
        partition: 0,
        messages: batch,
        lastOffset: batch.at(-1)!.offset,
        previousOffset: at === 0 ? undefined : String(at - 1),
        heartbeat: async () => undefined,
      });
    }
  }
}

/** Closed-loop reads, 16 in flight, for `seconds` each; the baseline is a GET of a value of the answer's size, same concurrency. */
async function measure(
  redis: Redis,
  name: string,
  read: { computed: () => Promise<unknown>; kept: () => Promise<unknown> },
  seconds: number,
): Promise<ReadModelFigures["reads"][number]> {
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
