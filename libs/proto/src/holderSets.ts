import { createHash } from "node:crypto";
import type { HolderPosition } from "./gen/events/v1/chain_network.js";

/**
 * How a subnet's holder set travels as deltas (HolderPositions in chain_network.proto): the order
 * of a set, its digest, the delta between two sets and a delta applied. The ingestor makes deltas
 * and the projector applies them; both must agree on every rule here, byte for byte, or the
 * digests part and the projector skips to the next keyframe.
 */

/** Positions largest first, ties by coldkey, then hotkey (public keys as hex): the order of every set. */
export function sortHolderPositions(positions: readonly HolderPosition[]): HolderPosition[] {
  return positions
    .map(ranked)
    .sort(byRank)
    .map((entry) => entry.position);
}

/** SHA-256 over the set in its order, one `<coldkey><hotkey>:<alpha>` line per position. */
export function holderSetDigest(positions: readonly HolderPosition[]): Buffer {
  const hash = createHash("sha256");
  for (const position of positions)
    hash.update(`${publicKeyOf(position.coldkey)}${publicKeyOf(position.hotkey)}:${position.alphaNalpha}\n`);
  return hash.digest();
}

/** What turns `before` into `after`: positions new or changed (in `after`'s order), then those gone, with alpha "0". */
export function holderSetDelta(before: readonly HolderPosition[], after: readonly HolderPosition[]): HolderPosition[] {
  const previous = new Map(before.map((position) => [positionKey(position), position.alphaNalpha]));
  const changed = after.filter((position) => previous.get(positionKey(position)) !== position.alphaNalpha);
  const kept = new Set(after.map(positionKey));
  const gone = before
    .filter((position) => !kept.has(positionKey(position)))
    .map((position) => ({ ...position, alphaNalpha: "0" }));
  return [...changed, ...gone];
}

/**
 * `base` (a set, so in order) with `delta` applied, in the order of a set; a position valued "0"
 * leaves it. A merge of the kept positions with the sorted delta: a block's delta is small next to
 * the set, and sorting the whole set again cost ~100 ms at 100,000 positions.
 */
export function applyHolderSetDelta(
  base: readonly HolderPosition[],
  delta: readonly HolderPosition[],
): HolderPosition[] {
  const touched = new Set(delta.map(positionKey));
  const kept = base.filter((position) => !touched.has(positionKey(position))).map(ranked);
  const added = delta
    .filter((position) => BigInt(position.alphaNalpha) !== 0n)
    .map(ranked)
    .sort(byRank);
  const merged: HolderPosition[] = [];
  let left = 0;
  let right = 0;
  while (left < kept.length || right < added.length) {
    const takeKept = right >= added.length || (left < kept.length && byRank(kept[left]!, added[right]!) <= 0);
    merged.push(takeKept ? kept[left++]!.position : added[right++]!.position);
  }
  return merged;
}

/** Digests compare by value. */
export function sameDigest(left: Uint8Array, right: Uint8Array): boolean {
  return left.length === right.length && left.every((byte, index) => byte === right[index]);
}

interface Ranked {
  position: HolderPosition;
  alpha: bigint;
  coldkey: string;
  hotkey: string;
}

const ranked = (position: HolderPosition): Ranked => ({
  position,
  alpha: BigInt(position.alphaNalpha),
  coldkey: publicKeyOf(position.coldkey),
  hotkey: publicKeyOf(position.hotkey),
});

const byRank = (left: Ranked, right: Ranked): number =>
  left.alpha !== right.alpha
    ? left.alpha > right.alpha
      ? -1
      : 1
    : compare(left.coldkey, right.coldkey) || compare(left.hotkey, right.hotkey);

const positionKey = (position: HolderPosition) => `${publicKeyOf(position.coldkey)}${publicKeyOf(position.hotkey)}`;
const publicKeyOf = (account: HolderPosition["coldkey"]) => account?.publicKey.toLowerCase() ?? "";
const compare = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);
