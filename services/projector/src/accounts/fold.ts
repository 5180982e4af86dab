import { accountsKeys } from "@platform/read-models";
import type { AccountsChange } from "./decode.js";
import { sliceId } from "./decode.js";

/**
 * The part of the read model a batch touches: for each (zset key, score) slice its members, and
 * the transaction details (`rm:{data}:accounts:tx:<pk>` fields) set or deleted.
 */
export interface AccountsSlices {
  members: Map<string, Set<string>>;
  /** `<detailsKey>\u0000<member>` -> base64 detail, or null to delete. */
  details: Map<string, string | null>;
}

const withoutPrefix = (members: Set<string>, prefix: string): string[] =>
  [...members].filter((member) => member.startsWith(prefix));

/**
 * Folds account changes into the loaded slices, in order (pure: returns new slices). An activity
 * adds its transaction and replaces its block's balance point (an activity without balance_after,
 * which the ingestor could not read, leaves the standing balance); a balance snapshot replaces the
 * block's point alone; a removal takes out the point and the transactions of the removed block's
 * fork at that position (a snapshot's removal, the point only). Applying the same changes again
 * yields the same slices.
 */
export function foldAccounts(loaded: AccountsSlices, changes: readonly AccountsChange[]): AccountsSlices {
  const members = new Map([...loaded.members].map(([id, set]) => [id, new Set(set)]));
  const details = new Map(loaded.details);
  const slice = (key: string, score: number): Set<string> => {
    const id = sliceId(key, score);
    let set = members.get(id);
    if (set === undefined) {
      set = new Set();
      members.set(id, set);
    }
    return set;
  };
  for (const change of changes) {
    if (change.kind === "activity") {
      if (change.point !== undefined) {
        const points = slice(accountsKeys.points(change.account), change.score);
        for (const member of withoutPrefix(points, change.pointPrefix)) points.delete(member);
        points.add(change.point);
      }
      slice(accountsKeys.txs(change.account), change.score).add(change.tx);
      details.set(`${accountsKeys.tx(change.account)}\u0000${change.tx}`, change.detail);
    } else if (change.kind === "point") {
      const points = slice(accountsKeys.points(change.account), change.score);
      for (const member of withoutPrefix(points, change.pointPrefix)) points.delete(member);
      points.add(change.point);
    } else if (change.kind === "removed") {
      const points = slice(accountsKeys.points(change.account), change.score);
      for (const member of withoutPrefix(points, change.pointPrefix)) points.delete(member);
      if (change.txPrefix === undefined) continue;
      const txs = slice(accountsKeys.txs(change.account), change.score);
      for (const member of withoutPrefix(txs, change.txPrefix)) {
        txs.delete(member);
        details.set(`${accountsKeys.tx(change.account)}\u0000${member}`, null);
      }
    }
  }
  return { members, details };
}

/** The commands that turn the stored slices into the folded ones (only what differs). */
export function sliceWrites(before: AccountsSlices, after: AccountsSlices): string[][] {
  const commands: string[][] = [];
  for (const [id, set] of after.members) {
    const [key, score] = id.split("\u0000") as [string, string];
    const stored = before.members.get(id) ?? new Set<string>();
    const removed = [...stored].filter((member) => !set.has(member));
    const added = [...set].filter((member) => !stored.has(member));
    if (removed.length > 0) commands.push(["zrem", key, ...removed]);
    if (added.length > 0) commands.push(["zadd", key, ...added.flatMap((member) => [score, member])]);
  }
  for (const [id, detail] of after.details) {
    const [key, field] = id.split("\u0000") as [string, string];
    commands.push(detail === null ? ["hdel", key, field] : ["hset", key, field, detail]);
  }
  return commands;
}
