import type { AccountId } from "@platform/proto/common/v1/network";
import type { HolderPositions } from "@platform/proto/events/v1/chain_network";

/**
 * The subnets read model's holder rankings, written by the projector's subnets projection and read
 * by data-query's holders/top: one definition for both sides. A ranking orders a holder set by
 * alpha descending (ties by public key) as members of a score-0 zset read BYLEX; data-query ranks
 * a set it still keeps but the zsets no longer show (a walk pinned to an older set) the same way.
 */

export interface ColdkeyRow {
  coldkey: AccountId;
  alpha: string;
  hotkeys: { hotkey: AccountId; alpha: string }[];
}

export interface PositionRow {
  coldkey: AccountId;
  hotkey: AccountId;
  alpha: string;
}

export interface RankedEntry<Row> {
  /** Zset member: orders by alpha descending, then by key, under BYLEX. */
  member: string;
  /** Hash field of the row. */
  field: string;
  row: Row;
}

/** Alpha sums stay below 10^24 (u64 positions, far fewer than 10^4 of them per coldkey). */
/** Digits of the inverted alpha that starts every member. */
export const RANK_WIDTH = 24;
const RANK_CEILING = 10n ** BigInt(RANK_WIDTH) - 1n;

/** The member that sorts `alpha` descending (ties by `key` ascending) in a score-0 zset read BYLEX. */
export function rankMember(alpha: bigint, key: string): string {
  if (alpha < 0n || alpha > RANK_CEILING) throw new RangeError(`alpha out of range: ${alpha}`);
  return `${(RANK_CEILING - alpha).toString().padStart(RANK_WIDTH, "0")}:${key}`;
}

/** The alpha a rank member stands for. */
export function alphaOfMember(member: string): bigint {
  return RANK_CEILING - BigInt(member.slice(0, RANK_WIDTH));
}

/**
 * Holders of a set, by coldkey (alpha summed over its hotkeys) and by position, without zero
 * holdings. Keys are public keys (lowercase hex). With `only`, the entries of those coldkeys alone:
 * exactly the full ranking's entries for them, since a coldkey's rows depend on its own positions.
 */
export function rankHolders(
  set: HolderPositions,
  only?: ReadonlySet<string>,
): {
  coldkeys: RankedEntry<ColdkeyRow>[];
  positions: RankedEntry<PositionRow>[];
} {
  const byColdkey = new Map<
    string,
    { coldkey: AccountId; alpha: bigint; hotkeys: Map<string, { hotkey: AccountId; alpha: bigint }> }
  >();
  for (const position of set.positions) {
    if (position.coldkey === undefined || position.hotkey === undefined) continue;
    const coldkey = position.coldkey.publicKey.toLowerCase();
    if (only !== undefined && !only.has(coldkey)) continue;
    const alpha = BigInt(position.alphaNalpha);
    if (alpha <= 0n) continue;
    const hotkey = position.hotkey.publicKey.toLowerCase();
    let holder = byColdkey.get(coldkey);
    if (holder === undefined) {
      holder = { coldkey: position.coldkey, alpha: 0n, hotkeys: new Map() };
      byColdkey.set(coldkey, holder);
    }
    holder.alpha += alpha;
    const held = holder.hotkeys.get(hotkey);
    if (held === undefined) holder.hotkeys.set(hotkey, { hotkey: position.hotkey, alpha });
    else held.alpha += alpha;
  }
  const coldkeys: RankedEntry<ColdkeyRow>[] = [];
  const positions: RankedEntry<PositionRow>[] = [];
  for (const [coldkey, holder] of byColdkey) {
    const hotkeys = [...holder.hotkeys.entries()].sort(([leftKey, left], [rightKey, right]) =>
      left.alpha === right.alpha ? (leftKey < rightKey ? -1 : 1) : left.alpha > right.alpha ? -1 : 1,
    );
    coldkeys.push({
      member: rankMember(holder.alpha, coldkey),
      field: coldkey,
      row: {
        coldkey: holder.coldkey,
        alpha: holder.alpha.toString(),
        hotkeys: hotkeys.map(([, held]) => ({ hotkey: held.hotkey, alpha: held.alpha.toString() })),
      },
    });
    for (const [hotkey, held] of hotkeys) {
      const field = `${coldkey}:${hotkey}`;
      positions.push({
        member: rankMember(held.alpha, field),
        field,
        row: { coldkey: holder.coldkey, hotkey: held.hotkey, alpha: held.alpha.toString() },
      });
    }
  }
  return { coldkeys, positions };
}
