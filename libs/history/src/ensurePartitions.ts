import type { HistoryDb, HistoryTransaction } from "./connectHistory.js";
import type { BlockPartitionedTable } from "./schema.js";

export interface PartitionKeeper {
  /**
   * Makes sure the partitions of `table` covering blocks `first..last` exist before a commit writes
   * there (history.ensure_block_partitions). Ranges already seen by this process are skipped without
   * a round trip: a partition holds weeks of blocks. Given the pool rather than a transaction, it
   * creates them in a transaction of its own, holding nothing else: the way to call it when other
   * writers share the table (market and subnets share series_points). Created inside a commit that
   * had read the table already, a partition waits for the readers of the parent while holding the
   * creation lock another such commit waits for: a deadlock (40P01), found by bench/store/finneySoak.ts.
   */
  ensure(tx: HistoryTransaction | HistoryDb, table: BlockPartitionedTable, first: bigint, last: bigint): Promise<void>;
  /**
   * Forgets what was seen: call it when a transaction that ensured partitions failed, since a
   * creation rolled back with it (the next attempt then asks the server again).
   */
  forget(): void;
}

export function partitionKeeper(): PartitionKeeper {
  const known = new Map<BlockPartitionedTable, { first: bigint; last: bigint }>();
  return {
    async ensure(tx, table, first, last) {
      const seen = known.get(table);
      if (seen !== undefined && first >= seen.first && last <= seen.last) return;
      await tx`select history.ensure_block_partitions(${table}, ${first.toString()}::bigint, ${last.toString()}::bigint)`;
      known.set(table, {
        first: seen === undefined || first < seen.first ? first : seen.first,
        last: seen === undefined || last > seen.last ? last : seen.last,
      });
    },
    forget: () => known.clear(),
  };
}
