import type { ProjectionBatch } from "@platform/bus";
import { PlatformError } from "@platform/errors/base";

/** One record's changes, with its offset: each store applies the records above its own offset. */
export interface DecodedRecord<Change> {
  offset: string;
  changes: readonly Change[];
}

/**
 * A store stands below where the batch continues from: records between were never applied to it.
 * Retryable: the consumer reloads the lowest offsets and delivers the records from there.
 */
export class StoreBehindError extends PlatformError {
  constructor(store: string, where: string, stored: string | undefined, previous: string | undefined) {
    super(
      `the ${store} store of ${where} stands at ${stored ?? "none"}, the batch continues from ${previous ?? "none"}: reloading the offsets`,
      { code: "STORE_BEHIND", retryable: true },
    );
  }
}

const position = (offset: string | undefined): bigint => (offset === undefined ? -1n : BigInt(offset));

/**
 * The records of `batch` a store standing at `stored` still has to apply: those above its offset.
 * The consumer resumes from the lowest of the stores' offsets, so a store that is ahead (it
 * committed a batch before a crash that the other did not) sees records it holds again, and skips
 * them; a store below the batch's start (restored from an older backup while running) makes the
 * consumer reload the offsets and resume lower.
 */
export function recordsToApply<Change>(
  store: string,
  batch: ProjectionBatch,
  stored: string | undefined,
  records: readonly DecodedRecord<Change>[],
): DecodedRecord<Change>[] {
  if (position(stored) < position(batch.previousOffset))
    throw new StoreBehindError(store, `${batch.topic}/${batch.partition}`, stored, batch.previousOffset);
  const after = position(stored);
  return records.filter((record) => BigInt(record.offset) > after);
}

/** The lowest of the stores' offsets (none while any store has none): where the consumer resumes. */
export function lowestOffset(offsets: readonly (string | undefined)[]): string | undefined {
  let lowest: bigint | undefined;
  for (const offset of offsets) {
    if (offset === undefined) return undefined;
    const value = BigInt(offset);
    if (lowest === undefined || value < lowest) lowest = value;
  }
  return lowest?.toString();
}

export const changesOf = <Change>(records: readonly DecodedRecord<Change>[]): Change[] =>
  records.flatMap((record) => record.changes);
