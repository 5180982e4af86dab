import type { ProjectionBatch } from "@platform/bus";
import type { DecodedRecord } from "./decodedRecords.js";

/**
 * Where a projection keeps a read model and, in the same atomic commit, the offsets it applied
 * (PostgreSQL: one SQL transaction; Redis: one MULTI/EXEC).
 */
export interface ProjectionStore<Change> {
  readonly name: string;
  /** The offset of the last record this store applied on the partition; undefined: none yet. */
  loadOffset(topic: string, partition: number): Promise<string | undefined>;
  /**
   * Applies the records above the store's own offset and moves it to the batch's last, atomically;
   * resolves with the records it applied (none when it already held them all).
   */
  apply(batch: ProjectionBatch, records: readonly DecodedRecord<Change>[]): Promise<DecodedRecord<Change>[]>;
}
