import { randomUUID } from "node:crypto";
import type { ProjectionBatch } from "@platform/bus";
import type { Logger } from "@platform/log";
import { type Redis, unwatch } from "@platform/store";
import type { CommitReplication } from "./commitReplication.js";
import { changesOf, type DecodedRecord, recordsToApply } from "./decodedRecords.js";
import type { ProjectionStore } from "./store.js";

export type RedisMulti = ReturnType<Redis["multi"]>;

/** What a Redis commit did, for the projection's signal. */
export interface RedisCommitted<Change> {
  batch: ProjectionBatch;
  changes: readonly Change[];
  /** The replies of the commands `prepare` queued, in order (EXEC's, without the offset's and the version's). */
  replies: readonly unknown[];
  /** The version token stored with the commit (with `versionKey`). */
  version: string | undefined;
}

export interface RedisStoreOptions<Change> {
  /** A connection of the projection's own: WATCH belongs to the connection. */
  redis: Redis;
  offsetKey(topic: string, partition: number): string;
  /**
   * Reads what the fold needs and returns the writes to queue on the commit's MULTI. Runs after the
   * offset is watched; keys it reads that another writer may change, it WATCHes first.
   */
  prepare(changes: readonly Change[], batch: ProjectionBatch): Promise<(multi: RedisMulti) => void>;
  /** Set to a fresh token by each commit: readers that keep answers drop those read under another. */
  versionKey?: string;
  /** Waited for after EXEC, before `onCommit` (REDIS_WAIT_REPLICAS). */
  replication?: CommitReplication | undefined;
  /** After the commit (and its replicas): the change signal. Never fails the commit. */
  onCommit?(committed: RedisCommitted<Change>): void;
  log: Logger;
  /** Attempts of a batch whose watched keys moved meanwhile; 5 by default. */
  maxAttempts?: number;
}

/**
 * The Redis side of a projection: WATCH the partition's offset, read it, fold the records above it,
 * and write the changes, the new offset (and a version token) in one MULTI/EXEC. A watched key
 * changed meanwhile (a rebalance overlap) makes EXEC fail, and the batch is folded again.
 */
export function redisStore<Change>(options: RedisStoreOptions<Change>): ProjectionStore<Change> {
  const { redis, log } = options;
  const maxAttempts = options.maxAttempts ?? 5;
  return {
    name: "redis",
    async loadOffset(topic, partition) {
      return (await redis.get(options.offsetKey(topic, partition))) ?? undefined;
    },
    async apply(batch, records) {
      const offsetKey = options.offsetKey(batch.topic, batch.partition);
      for (let attempt = 1; ; attempt += 1) {
        await redis.watch(offsetKey);
        let executed = false;
        try {
          const stored = (await redis.get(offsetKey)) ?? undefined;
          const pending: DecodedRecord<Change>[] = recordsToApply("redis", batch, stored, records);
          if (pending.length === 0) return [];
          const changes = changesOf(pending);
          const queue = await options.prepare(changes, batch);
          const multi = redis.multi();
          queue(multi);
          multi.set(offsetKey, batch.lastOffset);
          const version = options.versionKey === undefined ? undefined : randomUUID();
          if (options.versionKey !== undefined) multi.set(options.versionKey, version!);
          executed = true;
          const result = await multi.exec();
          if (result !== null) {
            const failed = result.find(([error]) => error !== null);
            if (failed) throw new Error("a write of the batch failed", { cause: failed[0] });
            const replies = result.slice(0, result.length - (version === undefined ? 1 : 2)).map(([, reply]) => reply);
            await options.replication?.settle(redis, offsetKey);
            try {
              options.onCommit?.({ batch, changes, replies, version });
            } catch (error) {
              log.warn({ err: error }, "could not announce the commit");
            }
            return pending;
          }
        } finally {
          if (!executed) await unwatch(redis).catch(() => undefined);
        }
        if (attempt >= maxAttempts)
          throw new Error(`batch of ${batch.topic}/${batch.partition} kept conflicting after ${attempt} attempts`);
        log.warn(
          { topic: batch.topic, partition: batch.partition, attempt },
          "watched keys changed during the batch; applying it again",
        );
        await batch.heartbeat().catch(() => undefined);
      }
    },
  };
}
