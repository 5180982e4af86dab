import type { ConsumedRecord, SupervisedProjection } from "@platform/bus";
import { type HistoryDb, type HistoryTransaction, type PartitionKeeper, partitionKeeper } from "@platform/history";
import type { Logger } from "@platform/log";
import {
  type CommitReplication,
  defineProjection,
  type ProjectionStore,
  postgresStore,
  type RedisMulti,
  redisStore,
} from "@platform/projection";
import { publishReadModelChange, type Signals } from "@platform/signals";
import type { Redis } from "@platform/store";
import { postgresSeriesState } from "./seriesHistory.js";
import { redisSeriesState, type SeriesState } from "./seriesState.js";

export interface SnapshotProjectionOptions<Change, Plan> {
  name: "market" | "subnets";
  /** A connection of the projection's own: WATCH belongs to the connection. */
  redis: Redis;
  log: Logger;
  offsetKey(topic: string, partition: number): string;
  /** The read model's version token (libs/read-models versions.ts), replaced by each commit. */
  versionKey: string;
  /** The projection's batch decoder; given one record at a time, it logs and skips what it cannot read. */
  decode(messages: readonly ConsumedRecord[], log: Logger): Change[];
  /** Reads what the fold needs from one store's copy (seriesState.ts) and decides the batch's writes. */
  plan(changes: readonly Change[], state: SeriesState): Promise<Plan>;
  /** The plan's writes to queue on the Redis commit (libs/projection redisStore); may read Redis-only keys first. */
  queueRedis(plan: Plan, changes: readonly Change[]): Promise<(multi: RedisMulti) => void>;
  /**
   * The history database: when given, every batch is committed there first (history.series_points
   * and the projection's state, shared/seriesHistory.ts), with its own offsets.
   */
  history?: HistoryDb | undefined;
  /** The plan's writes in the history commit's transaction. */
  writeHistory(tx: HistoryTransaction, plan: Plan, partitions: PartitionKeeper): Promise<void>;
  /**
   * The changes the history database keeps; every one by default. A series another projection
   * already keeps there point for point is left to it (the subnets projection's pools and
   * emissions: the market's).
   */
  inHistory?(change: Change): boolean;
  /** The blocks whose series rows a batch's changes may write (the history partitions they need), lowest and highest. */
  blocksOf(changes: readonly Change[]): { first: number; last: number } | undefined;
  /** Seeds a lost Redis read model from the history database (shared/seriesRestore.ts); with `history` only. */
  restore?(history: HistoryDb): Promise<void>;
  signals?: Signals | undefined;
  /** Waited for after EXEC, before the signal (REDIS_WAIT_REPLICAS). */
  replication?: CommitReplication | undefined;
  /** After each commit (and its signal): e.g. the read model's as_of metrics. */
  committed?(changes: readonly Change[]): void;
  /** Attempts of a batch whose watched keys moved meanwhile; 5 by default. */
  maxAttempts?: number;
}

/**
 * A read model of chain snapshots (market, subnets) on libs/projection: each batch is folded and
 * committed to PostgreSQL (every point, when a history database is given) and then to Redis (the
 * newest points of each series) with its offset and a new version token in one MULTI/EXEC, then
 * `readmodel.changed.<projection>` goes out with `{projection, version}`: readers that keep
 * answers (the gateway's conditional reads) drop those read under another version. A signal is a
 * hint: one lost (NATS away) only leaves a kept answer standing until its own Cache-Control runs
 * out, and a failed publish never fails the commit.
 */
export function snapshotProjection<Change, Plan>(
  options: SnapshotProjectionOptions<Change, Plan>,
): SupervisedProjection {
  const { name, log, redis } = options;
  const store = redisStore<Change>({
    redis,
    log,
    offsetKey: options.offsetKey,
    versionKey: options.versionKey,
    replication: options.replication,
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    prepare: async (changes) => options.queueRedis(await options.plan(changes, redisSeriesState(redis)), changes),
    onCommit({ changes, version }) {
      try {
        if (options.signals !== undefined && version !== undefined)
          publishReadModelChange(options.signals, { projection: name, version });
      } catch (error) {
        log.warn({ err: error, projection: name }, "could not publish the change signal");
      }
      options.committed?.(changes);
    },
  });
  return defineProjection<Change>({
    name,
    log,
    decode: (record) => options.decode([record], log),
    stores: options.history === undefined ? [store] : [historyStore(options, options.history), store],
    ...(options.history === undefined || options.restore === undefined
      ? {}
      : { restore: () => options.restore!(options.history!) }),
  });
}

function historyStore<Change, Plan>(
  options: SnapshotProjectionOptions<Change, Plan>,
  db: HistoryDb,
): ProjectionStore<Change> {
  const partitions = partitionKeeper();
  const inHistory = options.inHistory;
  const kept = (changes: readonly Change[]): readonly Change[] =>
    inHistory === undefined ? changes : changes.filter((change) => inHistory(change));
  return postgresStore<Change>({
    db,
    projection: options.name,
    // The partitions first, each in a transaction of its own (PartitionKeeper.ensure says why).
    async beforeTransaction(all) {
      const blocks = options.blocksOf(kept(all));
      if (blocks !== undefined) await partitions.ensure(db, "series_points", BigInt(blocks.first), BigInt(blocks.last));
    },
    async write(tx, all) {
      const changes = kept(all);
      const plan = await options.plan(changes, postgresSeriesState(tx, options.name));
      await options.writeHistory(tx, plan, partitions);
    },
    onRollback: () => partitions.forget(),
  });
}
