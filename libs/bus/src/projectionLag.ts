/**
 * The arithmetic of a projection's lag (projectionMetrics.ts), kept pure so it can be checked
 * without Kafka: how many records a partition still has to apply, and how old the oldest of them is.
 */

/** What is known of one partition the projection consumes. */
export interface PartitionLagState {
  /** The next offset the projection will apply (its stored offset plus one, or past a trailing commit marker). */
  next: bigint;
  /** The partition's high watermark and log start at the last refresh; undefined before the first. */
  high?: bigint;
  low?: bigint;
  /** Kafka timestamp (ms) of the first record of the batch being applied, while one is. */
  applyingMs?: number;
  /** Kafka timestamp (ms) of the last record applied. */
  appliedMs?: number;
  /** Wall-clock time (ms) this process last saw the partition with nothing left to apply. */
  caughtUpAtMs?: number;
  /** Wall-clock time (ms) the partition was assigned to this consumer. */
  assignedAtMs: number;
}

/**
 * Records not yet applied: high watermark minus the next offset to apply (or the log's start, if
 * retention moved past it), never below 0; 0 while no high watermark is known.
 */
export function partitionLagRecords(state: Pick<PartitionLagState, "next" | "high" | "low">): bigint {
  if (state.high === undefined) return 0n;
  const from = state.low !== undefined && state.low > state.next ? state.low : state.next;
  return state.high > from ? state.high - from : 0n;
}

/**
 * When the oldest record not yet applied was written (ms), approximately, or undefined when
 * nothing is left to apply. Known exactly while a batch is being applied (its first record);
 * otherwise bounded from below by the last applied record's timestamp and by the last moment the
 * partition was seen caught up (anything left was written after it), whichever is later; the time
 * of assignment when neither is known.
 */
export function oldestUnappliedMs(state: PartitionLagState): number | undefined {
  if (partitionLagRecords(state) === 0n) return undefined;
  if (state.applyingMs !== undefined) return state.applyingMs;
  const bounds = [state.appliedMs, state.caughtUpAtMs].filter((value): value is number => value !== undefined);
  return bounds.length === 0 ? state.assignedAtMs : Math.max(...bounds);
}

/** Seconds the projection is behind: now minus the oldest unapplied record's time over its partitions, 0 when caught up. */
export function lagSeconds(states: Iterable<PartitionLagState>, nowMs: number): number {
  let oldest: number | undefined;
  for (const state of states) {
    const written = oldestUnappliedMs(state);
    if (written !== undefined && (oldest === undefined || written < oldest)) oldest = written;
  }
  return oldest === undefined ? 0 : Math.max(0, (nowMs - oldest) / 1_000);
}
