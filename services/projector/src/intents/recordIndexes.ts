import { type ChainRef, Finality } from "@platform/proto/common/v1/common";
import { type IntentRecord, IntentStatus } from "@platform/proto/intents/v1/intents";
import { intentsKeys } from "@platform/read-models";

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
  const waitsForDeadline =
    record.status === IntentStatus.INTENT_STATUS_OPEN || record.status === IntentStatus.INTENT_STATUS_EXPIRED;
  if (waitsForDeadline && deadline !== undefined && record.destinationChainId !== undefined) {
    entries.push({ key: intentsKeys.deadlines(record.destinationChainId), member: record.orderId, score: deadline });
  }
  const steps = [record.opened, record.filled, record.settled, record.refunded];
  pushLowest(entries, steps, Finality.FINALITY_SAFE, intentsKeys.unsafe, record.orderId);
  pushLowest(entries, steps, Finality.FINALITY_FINALIZED, intentsKeys.unfinalized, record.orderId);
  return entries;
}

/**
 * For each chain of the steps still below `finality`, in order of first appearance, an entry of
 * `key(chainId)` scored by that chain's lowest such block number.
 */
function pushLowest(
  entries: IndexEntry[],
  steps: readonly (ChainRef | undefined)[],
  finality: Finality,
  key: (chainId: string) => string,
  member: string,
): void {
  // At most a handful of steps over one or two chains: arrays beat a Map here.
  const chains: string[] = [];
  const blocks: number[] = [];
  for (const ref of steps) {
    if (ref === undefined || ref.finality >= finality) continue;
    const block = Number(ref.blockNumber);
    const at = chains.indexOf(ref.chainId);
    if (at === -1) {
      chains.push(ref.chainId);
      blocks.push(block);
    } else blocks[at] = Math.min(blocks[at]!, block);
  }
  for (let index = 0; index < chains.length; index++)
    entries.push({ key: key(chains[index]!), member, score: blocks[index]! });
}

/** When the record was first seen: its notification, or its Open's block time, whichever was first. */
export function firstSightingMs(record: IntentRecord): number {
  const first = earlier(earlier(Number.POSITIVE_INFINITY, record.notifiedAt), record.opened?.blockTimestamp);
  return first === Number.POSITIVE_INFINITY ? 0 : first;
}

/** The earlier of `ms` and the RFC 3339 `time`, when that is a time. */
function earlier(ms: number, time: string | undefined): number {
  if (time === undefined || time === "") return ms;
  const parsed = Date.parse(time);
  return Number.isFinite(parsed) && parsed < ms ? parsed : ms;
}

/** What to write so the indexes go from `before` to `after`: removals and (re)additions. */
export function indexChanges(
  before: readonly IndexEntry[],
  after: readonly IndexEntry[],
): { remove: readonly IndexEntry[]; add: readonly IndexEntry[] } {
  // A record new or gone (most of a backlog): nothing to match up.
  if (before.length === 0) return { remove: [], add: after };
  if (after.length === 0) return { remove: before, add: [] };
  const id = (entry: IndexEntry) => `${entry.key}\u0000${entry.member}`;
  const afterById = new Map(after.map((entry) => [id(entry), entry] as const));
  const beforeById = new Map(before.map((entry) => [id(entry), entry] as const));
  return {
    remove: before.filter((entry) => !afterById.has(id(entry))),
    add: after.filter((entry) => beforeById.get(id(entry))?.score !== entry.score),
  };
}
