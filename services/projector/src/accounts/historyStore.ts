import { type HistoryTransaction, historyTables, type PartitionKeeper } from "@platform/history";
import { BLOCKS_KEPT } from "@platform/read-models";
import { type AccountsHistoryWrites, blockRange, type PrefixDelete } from "./historyWrites.js";

const columns = <Row, Key extends keyof Row>(rows: Iterable<Row>, keys: readonly Key[]): Array<Array<Row[Key]>> => {
  const out: Array<Array<Row[Key]>> = keys.map(() => []);
  for (const row of rows) keys.forEach((key, index) => out[index]!.push(row[key]));
  return out;
};

async function deleteByPrefix(tx: HistoryTransaction, table: string, deletes: readonly PrefixDelete[]): Promise<void> {
  if (deletes.length === 0) return;
  await tx.unsafe(
    `delete from ${table} t using unnest($1::text[], $2::bigint[], $3::text[]) as d(account, block, prefix)
     where t.account = d.account and t.block = d.block and starts_with(t.member, d.prefix)`,
    columns(deletes, ["account", "block", "prefix"] as const) as never,
  );
}

/**
 * Trims each partition's delivered blocks to the newest `$2` ($1: the partitions): each partition's
 * newest block is read once, not once per row (a subquery per row read the partition's 512 rows 512
 * times: ~35 ms per partition and commit, found by bench/store/accountsHistorySoak.ts).
 */
export const TRIM_BLOCKS_SQL = `delete from ${historyTables.accountBlocks} b
  using (select partition, max(block) as newest from ${historyTables.accountBlocks}
         where partition = any($1::int[]) group by partition) m
  where b.partition = m.partition and b.block <= m.newest - $2`;

/**
 * Writes a batch's accounts history in the commit's transaction, a statement per kind of row
 * (unnest arrays: one round trip whatever the batch's size): deletes first, then upserts, then
 * the partitions' delivered blocks, trimmed as Redis trims them.
 */
export async function writeAccountsHistory(
  tx: HistoryTransaction,
  writes: AccountsHistoryWrites,
  partitions: PartitionKeeper,
): Promise<void> {
  await deleteByPrefix(tx, historyTables.accountPoints, writes.pointDeletes);
  await deleteByPrefix(tx, historyTables.accountTransactions, writes.transactionDeletes);
  const points = blockRange(writes.points.values());
  if (points !== undefined) {
    await partitions.ensure(tx, "account_points", points.first, points.last);
    await tx.unsafe(
      `insert into ${historyTables.accountPoints} (account, block, score, member)
       select * from unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[])
       on conflict (account, block) do update set score = excluded.score, member = excluded.member`,
      columns(writes.points.values(), ["account", "block", "score", "member"] as const) as never,
    );
  }
  const transactions = blockRange(writes.transactions.values());
  if (transactions !== undefined) {
    await partitions.ensure(tx, "account_transactions", transactions.first, transactions.last);
    await tx.unsafe(
      `insert into ${historyTables.accountTransactions} (account, block, score, member, detail)
       select * from unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[])
       on conflict (account, block, member) do update set score = excluded.score, detail = excluded.detail`,
      columns(writes.transactions.values(), ["account", "block", "score", "member", "detail"] as const) as never,
    );
  }
  if (writes.blocksRemoved.length > 0)
    await tx.unsafe(
      `delete from ${historyTables.accountBlocks} b using unnest($1::int[], $2::text[]) as r(partition, member)
       where b.partition = r.partition and b.member = r.member`,
      columns(writes.blocksRemoved, ["partition", "member"] as const) as never,
    );
  if (writes.blocksSeen.length > 0) {
    await tx.unsafe(
      `insert into ${historyTables.accountBlocks} (partition, block, member)
       select * from unnest($1::int[], $2::bigint[], $3::text[]) on conflict do nothing`,
      columns(writes.blocksSeen, ["partition", "block", "member"] as const) as never,
    );
    const partitionsSeen = [...new Set(writes.blocksSeen.map((seen) => seen.partition))];
    await tx.unsafe(TRIM_BLOCKS_SQL, [partitionsSeen, BLOCKS_KEPT] as never);
  }
}
