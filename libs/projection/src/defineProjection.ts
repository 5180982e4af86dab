import type { ConsumedRecord, ProjectionBatch, SupervisedProjection } from "@platform/bus";
import type { Logger } from "@platform/log";
import { type DecodedRecord, lowestOffset } from "./decodedRecords.js";
import type { ProjectionStore } from "./store.js";

export interface ProjectionDefinition<Change> {
  name: string;
  /**
   * A record's changes (pure). Throwing skips the record with an error logged: a record that can
   * never be decoded would otherwise stop the projection for good.
   */
  decode(record: ConsumedRecord): readonly Change[];
  /**
   * The stores, in commit order. PostgreSQL (the durable history) comes before Redis (the latest
   * state and the hot window): a crash between their commits leaves Redis behind, never ahead, so
   * whatever Redis trims away is already on disk.
   */
  stores: readonly ProjectionStore<Change>[];
  log: Logger;
  /** Seeds a lost Redis read model from PostgreSQL with the offsets it stands at (SupervisedProjection.restore). */
  restore?(): Promise<void>;
}

/**
 * A projection is its decode and its fold; this keeps the rest: each batch is decoded once, then
 * every store applies, in one atomic commit of its own, the records above the offset it stored
 * itself. The consumer resumes from the lowest of the stores' offsets, so after a crash between
 * two commits the store that is ahead skips what it holds and the one behind catches up: each
 * record is applied exactly once to each store. A batch the stores refuse (a store behind where
 * the batch starts, a write that failed) throws, and the consumer reloads the offsets and retries.
 */
export function defineProjection<Change>(definition: ProjectionDefinition<Change>): SupervisedProjection {
  const { log, stores } = definition;
  if (stores.length === 0) throw new Error(`the ${definition.name} projection has no store`);
  const decodeBatch = (messages: readonly ConsumedRecord[]): DecodedRecord<Change>[] =>
    messages.map((record) => {
      if (record.value === null) return { offset: record.offset, changes: [] };
      try {
        return { offset: record.offset, changes: definition.decode(record) };
      } catch (error) {
        log.error(
          { topic: record.topic, partition: record.partition, offset: record.offset, err: error },
          `undecodable record; skipped by the ${definition.name} projection`,
        );
        return { offset: record.offset, changes: [] };
      }
    });
  return {
    ...(definition.restore === undefined ? {} : { restore: definition.restore }),
    async loadOffsets(topic, partition) {
      return lowestOffset(await Promise.all(stores.map((store) => store.loadOffset(topic, partition))));
    },
    async handleBatch(batch: ProjectionBatch) {
      const records = decodeBatch(batch.messages);
      for (const store of stores) await store.apply(batch, records);
    },
  };
}
