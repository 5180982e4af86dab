import type { Redis } from "@platform/store";
import { execPipeline } from "@platform/store";
import { type LoadedSeries, loadSeries, type PendingSeries } from "./seriesStore.js";

/**
 * What a snapshot projection's plan reads from one store before it folds a batch: the series'
 * tails, and the projection's few sets and hashes (price tombstones, known price pairs, pending
 * holder chunks). Each store answers from its own copy (Redis: seriesStore.ts, WATCHing what it
 * reads; PostgreSQL: seriesHistory.ts, inside the commit's transaction), so either one can be
 * applied, or rebuilt, without the other: the same pure fold over the same state gives the same
 * points in both.
 */
export interface SeriesState {
  /**
   * Which store's copy this is. The history database keeps a holder set's deltas as they came
   * (read-models holderPoints.ts rebuilds the sets); Redis keeps every set whole.
   */
  store: "redis" | "postgres";
  loadSeries(pending: readonly PendingSeries[]): Promise<LoadedSeries[]>;
  /** Every member of a set. */
  members(key: string): Promise<string[]>;
  /** The candidates that are members of a set. */
  membersAmong(key: string, candidates: readonly string[]): Promise<Set<string>>;
  /** Each hash's fields and values, in the order of `keys`. */
  hashes(keys: readonly string[]): Promise<Map<string, string>[]>;
}

/** The Redis copy, read on the projection's own connection; every key read is WATCHed for the MULTI that follows. */
export function redisSeriesState(redis: Redis): SeriesState {
  return {
    store: "redis",
    loadSeries: (pending) => loadSeries(redis, pending),
    async members(key) {
      await redis.watch(key);
      return redis.smembers(key);
    },
    async membersAmong(key, candidates) {
      if (candidates.length === 0) return new Set();
      await redis.watch(key);
      const flags = await redis.smismember(key, ...candidates);
      return new Set(candidates.filter((_, index) => flags[index] === 1));
    },
    async hashes(keys) {
      if (keys.length === 0) return [];
      await redis.watch(...keys);
      const pipeline = redis.pipeline();
      for (const key of keys) pipeline.hgetall(key);
      const stored = (await execPipeline(pipeline)) as Record<string, string>[];
      return stored.map((fields) => new Map(Object.entries(fields ?? {})));
    },
  };
}
