import { Finality, type ChainRef } from "@platform/proto/common/v1/common";
import { IntentStatus, type IntentRecord } from "@platform/proto/intents/v1/intents";
import { intentsKeys } from "./keys.js";

/** One sorted-set membership a record implies. */
export interface IndexEntry {
  key: string;
  member: string;
  score: number;
}

/**
 * The sorted-set entries a record implies (keys.ts): pending and expired lists of its user, the
 * deadline index of its destination chain, and the finality indexes of the chains of its steps.
 * Pure, so the entries of the record before a change are computed the same way and the
 * difference is what gets written.
 */
export function recordIndexes(suffix: string, record: IntentRecord | undefined): IndexEntry[] {
  if (record === undefined) return [];
  // A notified transaction's record under `tx:` is only a copy when the notification named the
  // order: the record under the order id is the one listed.
  if (suffix.startsWith("tx:") && record.orderId !== "") return [];
  const entries: IndexEntry[] = [];
  if (!record.isFinal && record.userAddress !== "") {
    entries.push({ key: intentsKeys.pending(record.userAddress), member: suffix, score: firstSightingMs(record) });
  }
  if (record.opened === undefined) return entries;
  const deadline = record.fillDeadline;
  if (record.status === IntentStatus.INTENT_STATUS_EXPIRED && deadline !== undefined && record.userAddress !== "") {
    entries.push({ key: intentsKeys.expired(record.userAddress), member: record.orderId, score: deadline });
  }
  const waitsForDeadline = record.status === IntentStatus.INTENT_STATUS_OPEN || record.status === IntentStatus.INTENT_STATUS_EXPIRED;
  if (waitsForDeadline && deadline !== undefined && record.destinationChainId !== undefined) {
    entries.push({ key: intentsKeys.deadlines(record.destinationChainId), member: record.orderId, score: deadline });
  }
  const steps = [record.opened, record.filled, record.settled, record.refunded].filter((ref): ref is ChainRef => ref !== undefined);
  const lowest = (predicate: (ref: ChainRef) => boolean): Map<string, number> => {
    const byChain = new Map<string, number>();
    for (const ref of steps.filter(predicate)) {
      const block = Number(ref.blockNumber);
      byChain.set(ref.chainId, Math.min(byChain.get(ref.chainId) ?? block, block));
    }
    return byChain;
  };
  for (const [chainId, block] of lowest((ref) => ref.finality < Finality.FINALITY_SAFE)) {
    entries.push({ key: intentsKeys.unsafe(chainId), member: record.orderId, score: block });
  }
  for (const [chainId, block] of lowest((ref) => ref.finality < Finality.FINALITY_FINALIZED)) {
    entries.push({ key: intentsKeys.unfinalized(chainId), member: record.orderId, score: block });
  }
  return entries;
}

/** When the record was first seen: its notification, or its Open's block time, whichever was first. */
export function firstSightingMs(record: IntentRecord): number {
  const times = [record.notifiedAt, record.opened?.blockTimestamp]
    .filter((time): time is string => time !== undefined && time !== "")
    .map((time) => Date.parse(time))
    .filter(Number.isFinite);
  return times.length === 0 ? 0 : Math.min(...times);
}

/** What to write so the indexes go from `before` to `after`: removals and (re)additions. */
export function indexChanges(before: readonly IndexEntry[], after: readonly IndexEntry[]): { remove: IndexEntry[]; add: IndexEntry[] } {
  const id = (entry: IndexEntry) => `${entry.key}\u0000${entry.member}`;
  const afterById = new Map(after.map((entry) => [id(entry), entry] as const));
  const beforeById = new Map(before.map((entry) => [id(entry), entry] as const));
  return {
    remove: before.filter((entry) => !afterById.has(id(entry))),
    add: after.filter((entry) => beforeById.get(id(entry))?.score !== entry.score),
  };
}
