/**
 * Which orders a batch's new chain heads reach, decided purely: the reads of those a head made safe
 * or final, the deadline range a head's time crossed, and whether a stored record's status
 * disagrees with that time. The intents projection reads and writes; these only decide.
 */
import { type IntentRecord, IntentStatus } from "@platform/proto/intents/v1/intents";
import { intentsKeys } from "@platform/read-models";
import { type HeadState, headFromHash } from "./heads.js";

/** Per chain with a new head, the reads of the orders it reaches by finality (a step at or below its safe or finalized block). */
export function finalityReads(newHeads: ReadonlyMap<string, HeadState>, headChains: readonly string[]): string[][] {
  return headChains.flatMap((chainId) => {
    const head = newHeads.get(chainId)!;
    return [
      ...(head.safeBlockNumber === undefined
        ? []
        : [["zrangebyscore", intentsKeys.unsafe(chainId), "-inf", head.safeBlockNumber]]),
      ...(head.finalizedBlockNumber === undefined
        ? []
        : [["zrangebyscore", intentsKeys.unfinalized(chainId), "-inf", head.finalizedBlockNumber]]),
    ];
  });
}

/** Per chain with a new head, the read of the deadlines between its expiry watermark (as stored) and its time. */
export function deadlineLookups(
  headChains: readonly string[],
  times: readonly number[],
  watermarks: readonly (string | null)[],
): string[][] {
  return headChains.map((chainId, index) => {
    const now = times[index]!;
    const stored = watermarks[index];
    const watermark = stored === null || stored === undefined ? undefined : Number(stored);
    // Deadlines between the watermark and the head time are the only ones whose status can flip.
    if (watermark === undefined) return ["zrangebyscore", intentsKeys.deadlines(chainId), "-inf", `(${now}`];
    if (now >= watermark) return ["zrangebyscore", intentsKeys.deadlines(chainId), String(watermark), `(${now}`];
    return ["zrangebyscore", intentsKeys.deadlines(chainId), String(now), `(${watermark}`];
  });
}

/** The heads the records are derived with: the stored ones (`hashes`, by chain), then the new ones over them. */
export function headsOf(
  hashes: ReadonlyMap<string, Record<string, string>>,
  newHeads: ReadonlyMap<string, HeadState>,
): Map<string, HeadState> {
  const heads = new Map<string, HeadState>();
  for (const [chainId, hash] of hashes) {
    const head = headFromHash(chainId, hash ?? {});
    if (head !== undefined) heads.set(chainId, head);
  }
  for (const [chainId, head] of newHeads) heads.set(chainId, head);
  return heads;
}

/** Whether a stored record's status disagrees with the head time `now`: still open past its deadline, or expired before it. */
export function expiryDisagrees(record: IntentRecord, now: number): boolean {
  if (record.fillDeadline === undefined) return false;
  const expired = now > record.fillDeadline;
  return (
    (record.status === IntentStatus.INTENT_STATUS_OPEN && expired) ||
    (record.status === IntentStatus.INTENT_STATUS_EXPIRED && !expired)
  );
}
