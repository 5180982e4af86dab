import type { ConsumedRecord, SupervisedProjection } from "@platform/bus";
import type { Logger } from "@platform/log";
import { type CommitReplication, defineProjection, type RedisMulti, redisStore } from "@platform/projection";
import { publishReadModelChange, type Signals } from "@platform/signals";
import type { Redis } from "@platform/store";

export interface SnapshotProjectionOptions<Change> {
  name: "market" | "subnets";
  /** A connection of the projection's own: WATCH belongs to the connection. */
  redis: Redis;
  log: Logger;
  offsetKey(topic: string, partition: number): string;
  /** The read model's version token (libs/read-models versions.ts), replaced by each commit. */
  versionKey: string;
  /** The projection's batch decoder; given one record at a time, it logs and skips what it cannot read. */
  decode(messages: readonly ConsumedRecord[], log: Logger): Change[];
  /** Reads what the fold needs and returns the writes to queue (libs/projection redisStore). */
  prepare(changes: readonly Change[]): Promise<(multi: RedisMulti) => void>;
  signals?: Signals | undefined;
  /** Waited for after EXEC, before the signal (REDIS_WAIT_REPLICAS). */
  replication?: CommitReplication | undefined;
  /** After each commit (and its signal): e.g. the read model's as_of metrics. */
  committed?(changes: readonly Change[]): void;
  /** Attempts of a batch whose watched keys moved meanwhile; 5 by default. */
  maxAttempts?: number;
}

/**
 * A read model of chain snapshots kept in Redis alone (market, subnets), on libs/projection: each
 * batch is folded and committed with its offset and a new version token in one MULTI/EXEC, then
 * `readmodel.changed.<projection>` goes out with `{projection, version}`: readers that keep
 * answers (the gateway's conditional reads) drop those read under another version. A signal is a
 * hint: one lost (NATS away) only leaves a kept answer standing until its own Cache-Control runs
 * out, and a failed publish never fails the commit.
 */
export function snapshotProjection<Change>(options: SnapshotProjectionOptions<Change>): SupervisedProjection {
  const { name, log } = options;
  const store = redisStore<Change>({
    redis: options.redis,
    log,
    offsetKey: options.offsetKey,
    versionKey: options.versionKey,
    replication: options.replication,
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    prepare: (changes) => options.prepare(changes),
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
    stores: [store],
  });
}
