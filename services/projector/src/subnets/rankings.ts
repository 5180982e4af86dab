import type { HolderPositions } from "@platform/proto/events/v1/chain_network";
import { type RankedEntry, rankHolders, subnetsKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";

type Multi = ReturnType<Redis["multi"]>;

/**
 * Writes a subnet's holder rankings for `set`, as a diff against the ranking of `previous` (the set
 * the stored ranking was made from, when the batch loaded it): only members that moved, rows that
 * changed and what left are written. Root's 4,900 positions move a few at a time, and rewriting
 * them whole was most of an epoch block's Redis writes. Only the coldkeys whose positions changed
 * are ranked on either side: every other coldkey's entries are the same in both rankings. Without
 * `previous`, the ranking is rewritten.
 */
export function queueRankings(
  multi: Multi,
  netuid: number,
  set: HolderPositions | undefined,
  previous: HolderPositions | undefined,
): void {
  const keys = [
    subnetsKeys.holderColdkeys(netuid),
    subnetsKeys.holderColdkeyRows(netuid),
    subnetsKeys.holderPositions(netuid),
    subnetsKeys.holderPositionRows(netuid),
  ] as const;
  if (set === undefined || previous === undefined) multi.del(...keys);
  if (set === undefined) return;
  const only = previous === undefined ? undefined : coldkeysWithChangedPositions(previous, set);
  if (only?.size === 0) return;
  const next = rankHolders(set, only);
  const before = previous === undefined ? { coldkeys: [], positions: [] } : rankHolders(previous, only);
  queueRankingDiff(multi, keys[0], keys[1], before.coldkeys, next.coldkeys);
  queueRankingDiff(multi, keys[2], keys[3], before.positions, next.positions);
}

/**
 * The coldkeys whose positions differ between two sets (a position new, gone, or of another alpha):
 * the only coldkeys whose ranking entries can differ, since a coldkey's rows are made of its own
 * positions alone. Comparing each position's alpha as written costs far less than ranking both sets
 * whole and comparing every row, which was ~120 ms a block in bench/store/finneySoak.ts at mainnet
 * size. Keys as rankHolders makes them (lowercase public keys).
 */
export function coldkeysWithChangedPositions(before: HolderPositions, after: HolderPositions): Set<string> {
  const previous = new Map<string, string>();
  // A key twice in one set (never from the ingestor: a set is keyed by its positions) is marked
  // changed, with "", rather than summed here; rankHolders sums it.
  for (const position of before.positions) {
    const key = positionKeyOf(position);
    if (key !== undefined) previous.set(key, previous.has(key) ? "" : position.alphaNalpha);
  }
  const changed = new Set<string>();
  for (const position of after.positions) {
    const key = positionKeyOf(position);
    if (key === undefined) continue;
    const alpha = previous.get(key);
    if (alpha !== position.alphaNalpha || alpha === "") changed.add(key.slice(0, key.indexOf(":")));
    // Deleted, so that a second occurrence in `after` counts as changed too.
    previous.delete(key);
  }
  for (const key of previous.keys()) changed.add(key.slice(0, key.indexOf(":")));
  return changed;
}

const positionKeyOf = (position: HolderPositions["positions"][number]): string | undefined =>
  position.coldkey === undefined || position.hotkey === undefined
    ? undefined
    : `${position.coldkey.publicKey.toLowerCase()}:${position.hotkey.publicKey.toLowerCase()}`;

/** The zset of members and the hash of rows of one ranking, moved from `before` to `after`. */
function queueRankingDiff<Row>(
  multi: Multi,
  membersKey: string,
  rowsKey: string,
  before: readonly RankedEntry<Row>[],
  after: readonly RankedEntry<Row>[],
): void {
  const beforeMembers = new Set(before.map((entry) => entry.member));
  const afterMembers = new Set(after.map((entry) => entry.member));
  const beforeRows = new Map(before.map((entry) => [entry.field, JSON.stringify(entry.row)] as const));
  const afterFields = new Set(after.map((entry) => entry.field));
  const gone = [...beforeMembers].filter((member) => !afterMembers.has(member));
  const goneFields = [...beforeRows.keys()].filter((field) => !afterFields.has(field));
  for (let at = 0; at < gone.length; at += 1_000) multi.zrem(membersKey, ...gone.slice(at, at + 1_000));
  for (let at = 0; at < goneFields.length; at += 1_000) multi.hdel(rowsKey, ...goneFields.slice(at, at + 1_000));
  const added = after.filter((entry) => !beforeMembers.has(entry.member));
  const changed = after.flatMap((entry) => {
    const row = JSON.stringify(entry.row);
    return beforeRows.get(entry.field) === row ? [] : [[entry.field, row] as const];
  });
  for (let at = 0; at < added.length; at += 1_000)
    multi.zadd(membersKey, ...added.slice(at, at + 1_000).flatMap((entry) => ["0", entry.member]));
  for (let at = 0; at < changed.length; at += 1_000)
    multi.hset(rowsKey, Object.fromEntries(changed.slice(at, at + 1_000)));
}
