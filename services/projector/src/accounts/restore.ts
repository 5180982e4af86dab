import { type HistoryDb, historyTables } from "@platform/history";
import type { Logger } from "@platform/log";
import { accountsKeys } from "@platform/read-models";
import { execPipeline, type Redis } from "@platform/store";
import { headKeys, MOVE_HEAD_SCRIPT } from "./head.js";

/** Rows written to Redis per round trip while restoring. */
const CHUNK = 2_000;

export interface AccountsRestoreOptions {
  redis: Redis;
  history: HistoryDb;
  log: Logger;
  /** The newest points kept per account (the projection's pointsKept). */
  pointsKept: number;
  /** chain.network.v1's partition count (every partition's blocks zset names the head). */
  partitions: number;
  /** BLOCKS_KEPT and the change log's bound, as the head script takes them. */
  blocksKept: number;
  changeLogLength: number;
}

/**
 * Rebuilds the accounts read model in Redis from PostgreSQL after Redis lost it: each account's
 * newest points, each partition's delivered blocks (and so the head), and last the offsets, all
 * read in one repeatable-read snapshot, so the offsets name exactly what was copied. The consumer
 * then resumes after those offsets: only the topic's tail is replayed, and a record it replays that
 * the copy already held folds to the same state (the fold is idempotent).
 */
export async function restoreAccounts(options: AccountsRestoreOptions): Promise<{ accounts: number; points: number }> {
  const { redis, history, pointsKept } = options;
  const movingHead = headKeys(
    Array.from({ length: options.partitions }, (_, partition) => accountsKeys.blocks(partition)),
  );
  let accounts = 0;
  let points = 0;
  await history.begin("isolation level repeatable read read only", async (tx) => {
    // Each account's newest points through the (account, block) key: one index probe per account
    // (a loose index scan), not a pass over every point the chain ever made.
    const cursor = tx
      .unsafe(
        `with recursive ids as (
           select min(account) as account from ${historyTables.accountPoints}
           union all
           select (select min(account) from ${historyTables.accountPoints} p where p.account > ids.account)
           from ids where ids.account is not null
         )
         select ids.account, newest.score::text as score, newest.member
         from ids cross join lateral (
           select score, member from ${historyTables.accountPoints} p
           where p.account = ids.account order by block desc limit $1
         ) newest
         where ids.account is not null`,
        [pointsKept],
      )
      .cursor(CHUNK);
    let last: string | undefined;
    for await (const rows of cursor) {
      const pipeline = redis.pipeline();
      for (const row of rows) {
        pipeline.zadd(accountsKeys.points(row.account as string), row.score as string, row.member as string);
        if (row.account !== last) accounts += 1;
        last = row.account as string;
        points += 1;
      }
      await execPipeline(pipeline);
    }
    const blocks = await tx.unsafe(
      `select partition, block::text as block, member from ${historyTables.accountBlocks} order by partition, block`,
    );
    for (let partition = 0; partition < options.partitions; partition++) {
      const ops = blocks.filter((row) => row.partition === partition).map((row) => ["b", row.block, row.member]);
      if (ops.length === 0) continue;
      await redis.eval(
        MOVE_HEAD_SCRIPT,
        movingHead.length,
        ...movingHead,
        String(partition),
        JSON.stringify(ops),
        String(options.blocksKept),
        String(options.changeLogLength),
      );
    }
    const offsets = await tx.unsafe(
      `select topic, partition, "offset"::text as "offset" from ${historyTables.offsets}
       where projection = 'accounts' and "offset" >= 0`,
    );
    const multi = redis.multi();
    for (const row of offsets)
      multi.set(accountsKeys.offset(row.topic as string, row.partition as number), row.offset as string);
    await execPipeline(multi);
  });
  options.log.info({ accounts, points }, "accounts read model copied from the history database");
  return { accounts, points };
}
