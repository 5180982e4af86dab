import type { ProjectionBatch } from "@platform/bus";
import { type HistoryDb, type HistoryTransaction, historyTables } from "@platform/history";
import { changesOf, type DecodedRecord, recordsToApply } from "./decodedRecords.js";
import type { ProjectionStore } from "./store.js";

export interface PostgresStoreOptions<Change> {
  db: HistoryDb;
  /** The projection's name: its rows in history.projection_offsets. */
  projection: string;
  /**
   * Runs before the commit's transaction with the changes of every record of the batch (some may
   * turn out to be applied already): for work that must not share the transaction, e.g. creating
   * the partitions its rows need.
   */
  beforeTransaction?(changes: readonly Change[]): Promise<void>;
  /** Writes the changes of the records still to apply, inside the commit's transaction. */
  write(tx: HistoryTransaction, changes: readonly Change[], batch: ProjectionBatch): Promise<void>;
  /** Told when a commit failed (its transaction rolled back), e.g. to forget partitions it created. */
  onRollback?(): void;
}

/**
 * The PostgreSQL side of a projection: each batch is one transaction that locks the partition's
 * offset row, writes the records above it and moves it to the batch's last offset. Two members
 * applying the same partition (a rebalance overlap) queue on the row lock, and the second finds
 * the offset moved and applies nothing twice.
 */
export function postgresStore<Change>(options: PostgresStoreOptions<Change>): ProjectionStore<Change> {
  const { db, projection } = options;
  const table = historyTables.offsets;
  return {
    name: "postgres",
    async loadOffset(topic, partition) {
      const [row] = await db.unsafe(
        `select "offset"::text as "offset" from ${table} where projection = $1 and topic = $2 and partition = $3`,
        [projection, topic, partition],
      );
      return row === undefined || row.offset === "-1" ? undefined : (row.offset as string);
    },
    async apply(batch, records) {
      try {
        await options.beforeTransaction?.(changesOf(records));
        return await db.begin(async (tx) => {
          // -1 stands for "nothing applied", so that the row exists to be locked from the first batch on.
          await tx.unsafe(
            `insert into ${table} (projection, topic, partition, "offset") values ($1, $2, $3, -1) on conflict do nothing`,
            [projection, batch.topic, batch.partition],
          );
          const [row] = await tx.unsafe(
            `select "offset"::text as "offset" from ${table} where projection = $1 and topic = $2 and partition = $3 for update`,
            [projection, batch.topic, batch.partition],
          );
          const stored = row?.offset === "-1" ? undefined : (row?.offset as string | undefined);
          const pending: DecodedRecord<Change>[] = recordsToApply("postgres", batch, stored, records);
          if (pending.length === 0) return [];
          await options.write(tx, changesOf(pending), batch);
          await tx.unsafe(`update ${table} set "offset" = $4 where projection = $1 and topic = $2 and partition = $3`, [
            projection,
            batch.topic,
            batch.partition,
            batch.lastOffset,
          ]);
          return pending;
        });
      } catch (error) {
        options.onRollback?.();
        throw error;
      }
    },
  };
}
