import type { ProjectionBatch } from "@platform/bus";
import type { Logger } from "@platform/log";
import { TOPICS } from "@platform/proto/topics";
import { accountsKeys } from "@platform/read-models";
import { type Signals, subjects } from "@platform/signals";
import { type Redis, unwatch } from "@platform/store";
import type { CommitReplication } from "../shared/commitReplication.js";
import { type ReadModelMetrics, throttled } from "../supervisor/readModelMetrics.js";
import { type AccountsChange, decodeAccountsBatch, sliceId, slicesOf } from "./decode.js";
import { type AccountsSlices, foldAccounts, sliceWrites } from "./fold.js";
import { HEAD_MOVED, headArguments, headKeys, MOVE_HEAD_SCRIPT } from "./head.js";

export interface AccountsProjectionOptions {
  /** A connection of the projection's own: WATCH belongs to the connection. */
  redis: Redis;
  log: Logger;
  /**
   * `readmodel.changed.accounts` goes out here after each commit that changed accounts or moved the
   * head: `{accounts: string[], truncated, head}`, `head` true when the head names another block
   * (every answer about an account shows the head as its `as_of`, so every one of them changed).
   */
  signals?: Signals;
  /** Waited for between each commit and its signal (shared/commitReplication.ts). */
  replication?: CommitReplication | undefined;
  /** Attempts of a batch whose watched offset moved meanwhile; 5 by default. */
  maxAttempts?: number;
  /** chain.network.v1's partition count (the head waits for every partition); the topic catalog's by default. */
  partitions?: number;
  /** Told where the head stands after commits that moved it (`read_model_as_of_*{read_model="accounts"}`). */
  readModels?: ReadModelMetrics;
}

export interface AccountsProjection {
  loadOffsets(topic: string, partition: number): Promise<string | undefined>;
  handleBatch(batch: ProjectionBatch): Promise<void>;
}

const SIGNAL_LIMIT = 500;

/**
 * The accounts projection: folds chain.network.v1 into the read model of keys.ts, exactly once per
 * record. Each batch watches its partition's stored offset and checks it against the batch's
 * previous offset, loads the (zset, score) slices its account records touch, folds the records
 * into them with the pure fold, and writes what differs, the head move and the offset in one
 * MULTI/EXEC. An account's records all travel in one partition (keyed by its public key), so only
 * the offset needs watching; the head, shared by every partition, moves by script.
 */
export function accountsProjection(options: AccountsProjectionOptions): AccountsProjection {
  const { redis, log } = options;
  const maxAttempts = options.maxAttempts ?? 5;
  const partitions = options.partitions ?? TOPICS.chainNetwork.partitions;
  const movingHead = headKeys(Array.from({ length: partitions }, (_, partition) => accountsKeys.blocks(partition)));
  // The head is the oldest of every partition's newest block, computed in Redis by the commit's
  // script: read back at most once a second (a replay commits far more often).
  const readModels = options.readModels;
  const readHead =
    readModels &&
    throttled(async () => {
      const [block, timestamp] = await redis.hmget(accountsKeys.head, "blockNumber", "timestamp");
      if (block !== null && block !== undefined && timestamp !== null && timestamp !== undefined)
        readModels.stand("accounts", Number(block), Date.parse(timestamp) / 1_000);
    }, 1_000);

  const loadSlices = async (changes: readonly AccountsChange[]): Promise<AccountsSlices> => {
    const slices = slicesOf(changes);
    const pipeline = redis.pipeline();
    for (const { key, score } of slices) pipeline.zrangebyscore(key, score, score);
    const results = slices.length === 0 ? [] : ((await pipeline.exec()) ?? []);
    const members = new Map<string, Set<string>>();
    slices.forEach(({ key, score }, index) => {
      const [error, value] = results[index] ?? [new Error("no reply"), null];
      if (error) throw error;
      members.set(sliceId(key, score), new Set(value as string[]));
    });
    return { members, details: new Map() };
  };

  const commit = async (
    batch: ProjectionBatch,
    changes: readonly AccountsChange[],
  ): Promise<{ committed: false } | { committed: true; headMoved: boolean }> => {
    const offsetKey = accountsKeys.offset(batch.topic, batch.partition);
    await redis.watch(offsetKey);
    try {
      const stored = (await redis.get(offsetKey)) ?? undefined;
      if (stored !== batch.previousOffset) {
        throw new Error(
          `stored offset of ${batch.topic}/${batch.partition} is ${stored ?? "none"}, the batch continues from ${batch.previousOffset ?? "none"}`,
        );
      }
      const before = await loadSlices(changes);
      const after = foldAccounts(before, changes);
      const transaction = redis.multi();
      const writes = sliceWrites(before, after);
      for (const [command, ...args] of writes) transaction.call(command!, ...args);
      // A partition beyond the configured count (the topic grew) cannot hold the head back; said loudly below.
      const head = batch.partition < partitions ? headArguments(batch.partition, changes) : undefined;
      // The script's reply follows the slice writes' among EXEC's replies.
      const headReply = writes.length;
      if (head !== undefined) transaction.eval(MOVE_HEAD_SCRIPT, movingHead.length, ...movingHead, ...head);
      transaction.set(offsetKey, batch.lastOffset);
      const result = await transaction.exec();
      if (result === null) return { committed: false };
      const failed = result.find(([error]) => error !== null);
      if (failed !== undefined) throw failed[0];
      return { committed: true, headMoved: head !== undefined && result[headReply]?.[1] === HEAD_MOVED };
    } finally {
      await unwatch(redis).catch(() => undefined);
    }
  };

  const signal = (changes: readonly AccountsChange[], headMoved: boolean): void => {
    if (options.signals === undefined) return;
    const accounts = [
      ...new Set(
        changes.flatMap((change) =>
          change.kind === "activity" || change.kind === "removed" || change.kind === "point" ? [change.account] : [],
        ),
      ),
    ];
    if (accounts.length === 0 && !headMoved) return;
    try {
      options.signals.publish(subjects.readModelChanged("accounts"), {
        accounts: accounts.slice(0, SIGNAL_LIMIT),
        truncated: accounts.length > SIGNAL_LIMIT,
        head: headMoved,
      });
    } catch (error) {
      log.warn({ err: error }, "could not publish the accounts change signal");
    }
  };

  return {
    async loadOffsets(topic, partition) {
      return (await redis.get(accountsKeys.offset(topic, partition))) ?? undefined;
    },
    async handleBatch(batch) {
      const changes = decodeAccountsBatch(batch.messages, log);
      if (batch.partition >= partitions)
        log.error(
          { topic: batch.topic, partition: batch.partition, partitions },
          "a partition beyond the configured count: the accounts head ignores it",
        );
      for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
        const outcome = await commit(batch, changes);
        if (outcome.committed) {
          await options.replication?.settle(redis, accountsKeys.offset(batch.topic, batch.partition));
          signal(changes, outcome.headMoved);
          if (readHead !== undefined && changes.some((change) => change.kind === "block" || change.kind === "unblock"))
            readHead();
          return;
        }
        await batch.heartbeat();
      }
      throw new Error(
        `the accounts batch ${batch.topic}/${batch.partition}@${batch.lastOffset} kept conflicting; retrying it`,
      );
    },
  };
}
