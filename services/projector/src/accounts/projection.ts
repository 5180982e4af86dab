import type { SupervisedProjection } from "@platform/bus";
import { type HistoryDb, partitionKeeper } from "@platform/history";
import type { Logger } from "@platform/log";
import {
  type CommitReplication,
  defineProjection,
  type ProjectionStore,
  postgresStore,
  redisStore,
} from "@platform/projection";
import { TOPICS } from "@platform/proto/topics";
import { accountsKeys, BLOCKS_KEPT, dataChangeLog } from "@platform/read-models";
import { publishReadModelChange, type Signals } from "@platform/signals";
import type { Redis } from "@platform/store";
import { type ReadModelMetrics, throttled } from "../supervisor/readModelMetrics.js";
import { type AccountsChange, decodeAccountsRecord, pointChangesOnly, sliceId, slicesOf } from "./decode.js";
import { type AccountsSlices, foldAccounts, sliceWrites } from "./fold.js";
import { HEAD_MOVED, headArguments, headKeys, MOVE_HEAD_SCRIPT } from "./head.js";
import { writeAccountsHistory } from "./historyStore.js";
import { accountsHistoryWrites } from "./historyWrites.js";
import { restoreAccounts } from "./restore.js";

export interface AccountsProjectionOptions {
  /** A connection of the projection's own: WATCH belongs to the connection. */
  redis: Redis;
  /**
   * The history database (PostgreSQL): balance points and transactions for ever, committed before
   * Redis in each batch (libs/projection). Without it only Redis holds them (benches, old tests).
   */
  history?: HistoryDb | undefined;
  log: Logger;
  /**
   * `readmodel.changed.accounts` goes out here after each commit that changed accounts or moved the
   * head: `{accounts: string[], truncated, head}`, `head` true when the head names another block
   * (every answer about an account shows the head as its `as_of`, so every one of them changed).
   */
  signals?: Signals;
  /** Waited for between each commit and its signal (libs/projection commitReplication). */
  replication?: CommitReplication | undefined;
  /** Attempts of a batch whose watched offset moved meanwhile; 5 by default. */
  maxAttempts?: number;
  /** chain.network.v1's partition count (the head waits for every partition); the topic catalog's by default. */
  partitions?: number;
  /** Told where the head stands after commits that moved it (`read_model_as_of_*{read_model="accounts"}`). */
  readModels?: ReadModelMetrics;
  /**
   * With a history database, the newest balance points Redis keeps per account (4 by default): the
   * latest balance and the few blocks a lagging partition may hold the head behind it. Older points
   * and every transaction are read from PostgreSQL, so Redis grows with the number of accounts, not
   * with the age of the chain.
   */
  pointsKept?: number;
}

export type AccountsProjection = SupervisedProjection;

const SIGNAL_LIMIT = 500;
const DEFAULT_POINTS_KEPT = 4;

/**
 * The accounts projection: folds chain.network.v1 into the history tables (PostgreSQL) and the
 * read model of keys.ts (Redis), exactly once per record in each (libs/projection). In Redis a
 * batch loads the (zset, score) slices its account records touch, folds the records into them with
 * the pure fold, and writes what differs, the head move and the offset in one MULTI/EXEC. An
 * account's records all travel in one partition (keyed by its public key), so only the offset
 * needs watching; the head, shared by every partition, moves by script.
 */
export function accountsProjection(options: AccountsProjectionOptions): AccountsProjection {
  const { redis, log } = options;
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

  const bounded = options.history !== undefined;
  const pointsKept = options.pointsKept ?? DEFAULT_POINTS_KEPT;
  const loadSlices = async (changes: readonly AccountsChange[]): Promise<AccountsSlices> => {
    const slices = slicesOf(changes, !bounded);
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
      publishReadModelChange(options.signals, {
        projection: "accounts",
        accounts: accounts.slice(0, SIGNAL_LIMIT),
        truncated: accounts.length > SIGNAL_LIMIT,
        head: headMoved,
      });
    } catch (error) {
      log.warn({ err: error }, "could not publish the accounts change signal");
    }
  };

  // A partition beyond the configured count (the topic grew) cannot hold the head back; said loudly.
  const headOf = (partition: number, changes: readonly AccountsChange[]) => {
    if (partition < partitions) return headArguments(partition, changes);
    log.error({ partition, partitions }, "a partition beyond the configured count: the accounts head ignores it");
    return undefined;
  };

  const inRedis = redisStore<AccountsChange>({
    redis,
    log,
    offsetKey: accountsKeys.offset,
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    replication: options.replication,
    async prepare(changes, batch) {
      const kept = bounded ? pointChangesOnly(changes) : changes;
      const before = await loadSlices(kept);
      const writes = sliceWrites(before, foldAccounts(before, kept));
      const head = headOf(batch.partition, changes);
      const trimmed = bounded
        ? [...new Set(kept.flatMap((change) => (change.kind === "point" ? [change.account] : [])))]
        : [];
      return (multi) => {
        for (const [command, ...args] of writes) multi.call(command!, ...args);
        for (const account of trimmed) multi.zremrangebyrank(accountsKeys.points(account), 0, -(pointsKept + 1));
        // The script's reply comes last among the queued commands' (onCommit reads it there).
        if (head !== undefined) multi.eval(MOVE_HEAD_SCRIPT, movingHead.length, ...movingHead, ...head);
      };
    },
    onCommit({ batch, changes, replies }) {
      const headQueued = batch.partition < partitions && headArguments(batch.partition, changes) !== undefined;
      signal(changes, headQueued && replies.at(-1) === HEAD_MOVED);
      if (readHead !== undefined && changes.some((change) => change.kind === "block" || change.kind === "unblock"))
        readHead();
    },
  });
  const stores: ProjectionStore<AccountsChange>[] = [inRedis];
  if (options.history !== undefined) {
    const keeper = partitionKeeper();
    stores.unshift(
      postgresStore<AccountsChange>({
        db: options.history,
        projection: "accounts",
        write: (tx, changes) => writeAccountsHistory(tx, accountsHistoryWrites(changes), keeper),
        onRollback: keeper.forget,
      }),
    );
  }
  const history = options.history;
  return defineProjection<AccountsChange>({
    name: "accounts",
    log,
    decode: (record) => decodeAccountsRecord(record, log),
    stores,
    ...(history === undefined
      ? {}
      : {
          restore: async () =>
            void (await restoreAccounts({
              redis,
              history,
              log,
              pointsKept,
              partitions,
              blocksKept: BLOCKS_KEPT,
              changeLogLength: dataChangeLog.maxLength,
            })),
        }),
  });
}
