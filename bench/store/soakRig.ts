import { execFileSync } from "node:child_process";
import type { ConsumedRecord, SupervisedProjection } from "@platform/bus";
import type { HistoryDb } from "@platform/history";
import { TOPICS } from "@platform/proto/topics";
import type { Redis } from "@platform/store";
import { kafkaPartitioner, sized } from "../src/kafkaBatches.js";
import type { StreamBlock } from "./finneyStream.js";

/*
 * What the soaks (accountsHistorySoak.ts, finneySoak.ts) share: handing generated blocks to
 * projections as the consumer would, timing their PostgreSQL commits, and reading each store's size.
 */

/** kafkajs' fetch `maxBytes` and `maxBytesPerPartition`, as bench/native/scale/readModels.ts. */
export const FETCH_MAX_BYTES = 10 * 1024 * 1024;
export const PARTITION_MAX_BYTES = 1024 * 1024;
const PARTITIONS = TOPICS.chainNetwork.partitions;
/** Commits of an empty-ish transaction timed on the history side's server: the fsync floor of a commit. */
const FLOOR_COMMITS = 200;

/** The pool with its `begin` (one per PostgreSQL commit of the projection) timed. */
export function timedBegin(db: HistoryDb, clock: { ms: number }): HistoryDb {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property !== "begin") return Reflect.get(target, property, receiver);
      const begin = target.begin as (...args: unknown[]) => Promise<unknown>;
      return async (...args: unknown[]) => {
        const started = performance.now();
        try {
          return await begin(...args);
        } finally {
          clock.ms += performance.now() - started;
        }
      };
    },
  });
}

/** A projection the feeder hands batches to, with the clock of its PostgreSQL transactions. */
export interface FedProjection {
  name: string;
  projection: SupervisedProjection;
  postgresClock: { ms: number };
}

export interface FeedTiming {
  /** From handing the records over to the last batch committed by every projection. */
  ms: number;
  /** Time inside PostgreSQL transactions, summed over the projections. */
  postgresMs: number;
  /** Batches per projection (the same cut for each). */
  batches: number;
  /** Each projection's own: from the hand-over to its last batch committed, and its PostgreSQL share. */
  byProjection: Record<string, { ms: number; postgresMs: number }>;
}

/**
 * Hands fetched blocks to the projections as the consumer does: each record to the partition
 * kafkajs' default partitioner gives its key, offsets consecutive per partition, a fetch cut per
 * partition in batches of up to 1 MiB; the projections side by side (each its own consumer group, as
 * their Deployments), a projection's partitions one after the other (kafkajs' default
 * `partitionsConsumedConcurrently`).
 */
export function feeder(projections: readonly FedProjection[]) {
  const partitionOf = kafkaPartitioner(PARTITIONS);
  const nextOffset = new Array<number>(PARTITIONS).fill(0);
  const committed = new Map<string, string>();
  const now = String(Date.now());
  return async (blocks: readonly StreamBlock[]): Promise<FeedTiming> => {
    const byPartition = new Map<number, ConsumedRecord[]>();
    for (const block of blocks)
      for (const record of block.records) {
        const partition = partitionOf(record.key);
        const list = byPartition.get(partition) ?? [];
        list.push({
          topic: TOPICS.chainNetwork.name,
          partition,
          offset: String(nextOffset[partition]!++),
          timestamp: now,
          key: record.key,
          value: record.value,
          eventId: record.eventId,
          eventType: record.eventType,
          schema: TOPICS.chainNetwork.schema,
          traceparent: undefined,
          tracestate: undefined,
          headers: {},
        });
        byPartition.set(partition, list);
      }
    const batches = [...byPartition]
      .sort((a, b) => a[0] - b[0])
      .flatMap(([partition, messages]) =>
        [...sized(messages, PARTITION_MAX_BYTES)].map((batch) => ({ partition, batch })),
      );
    const byProjection: FeedTiming["byProjection"] = {};
    const started = performance.now();
    await Promise.all(
      projections.map(async ({ name, projection, postgresClock }) => {
        const postgresBefore = postgresClock.ms;
        for (const { partition, batch } of batches) {
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
        byProjection[name] = { ms: performance.now() - started, postgresMs: postgresClock.ms - postgresBefore };
      }),
    );
    return {
      ms: performance.now() - started,
      postgresMs: Object.values(byProjection).reduce((sum, one) => sum + one.postgresMs, 0),
      batches: batches.length,
      byProjection,
    };
  };
}

export async function usedMemory(redis: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info("memory"))?.[1] ?? 0);
}

export interface PostgresFigures {
  databaseBytes: number;
  walLsn: string;
  tables: Record<string, { bytes: number; rows: number }>;
}

export async function postgresFigures(admin: HistoryDb): Promise<PostgresFigures> {
  await admin`checkpoint`;
  const [database] =
    await admin`select pg_database_size('platform')::bigint::text as bytes, pg_current_wal_lsn()::text as lsn`;
  // Each partition counted under its parent (a partitioned table holds no rows itself).
  const tables = await admin.unsafe(
    `select coalesce(p.relname, c.relname) as name, sum(pg_total_relation_size(c.oid))::bigint::text as bytes,
            sum(c.reltuples)::bigint::text as estimate
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     left join pg_inherits i on i.inhrelid = c.oid left join pg_class p on p.oid = i.inhparent
     where n.nspname = 'history' and c.relkind = 'r' group by 1 order by 1`,
  );
  const figures: PostgresFigures = {
    databaseBytes: Number(database!.bytes),
    walLsn: database!.lsn as string,
    tables: {},
  };
  for (const row of tables) {
    const [count] = await admin.unsafe(`select count(*)::bigint::text as rows from history.${row.name as string}`);
    figures.tables[row.name as string] = { bytes: Number(row.bytes), rows: Number(count!.rows) };
  }
  return figures;
}

/** Redis memory by key family (hex ids and digits masked): MEMORY USAGE of every key. */
export async function redisFamilies(
  redis: Redis,
  top = 8,
): Promise<Array<{ family: string; keys: number; bytes: number }>> {
  const families = new Map<string, { keys: number; bytes: number }>();
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "COUNT", 2_000);
    cursor = next;
    const pipeline = redis.pipeline();
    // SAMPLES 0: every element counted. By default Redis sizes a zset or hash from 5 of its
    // elements, which for a pool's 3,600 points of varying size moved a family by tens of MB
    // between two samples (the Finney day of 7 Dec, bench/HISTORY.md).
    for (const key of keys) pipeline.memory("USAGE", key, "SAMPLES", 0);
    const sizes = (await pipeline.exec()) ?? [];
    keys.forEach((key, index) => {
      const family = key.replace(/0x[0-9a-f]+/gi, "<pk>").replace(/\d+/g, "<n>");
      const entry = families.get(family) ?? { keys: 0, bytes: 0 };
      entry.keys += 1;
      entry.bytes += Number(sizes[index]?.[1] ?? 0);
      families.set(family, entry);
    });
  } while (cursor !== "0");
  return [...families]
    .map(([family, entry]) => ({ family, ...entry }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top);
}

/**
 * The fsync floor: the p50 of a transaction that inserts one small row and commits, on the same
 * durable server (each of the projection's commits pays at least this once).
 */
export async function commitFloorMs(admin: HistoryDb): Promise<number> {
  await admin`create table public.bench_commit_floor (n int)`;
  const times: number[] = [];
  for (let n = 0; n < FLOOR_COMMITS; n++) {
    const started = performance.now();
    await admin.begin(async (tx) => {
      await tx`insert into public.bench_commit_floor values (${n})`;
    });
    times.push(performance.now() - started);
  }
  await admin`drop table public.bench_commit_floor`;
  return quantile(times, 0.5);
}

export const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

export function commitOf(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}
