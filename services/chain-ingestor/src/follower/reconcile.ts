import type { Hex } from "viem";
import type { BlockHeader, BlockRef, WindowBlock } from "./blocks.js";

/*
 * Reorganisation detection as pure functions over header sequences, so every case (a clean
 * extension, a fork at the tip, a fork inside a fetched range, a reorganisation deeper than the
 * kept window) is tested without a node.
 */

export interface LinkResult {
  /** The longest prefix of the headers that continues the tip and each other, in order. */
  linked: BlockHeader[];
  /** True when the first header does not build on the tip: the tip is no longer canonical. */
  tipMismatch: boolean;
}

/**
 * Checks that `headers` (ascending, consecutive numbers) build on `tip` and on each other. A break
 * after the first header means the node switched forks while the range was being read: only the
 * prefix before the break is usable now, and the next read sees the new fork from the tip.
 */
export function linkHeaders(tip: BlockRef | undefined, headers: readonly BlockHeader[]): LinkResult {
  const first = headers[0];
  if (first === undefined) return { linked: [], tipMismatch: false };
  if (tip !== undefined && (first.parentHash !== tip.hash || first.number !== tip.number + 1n)) {
    return { linked: [], tipMismatch: true };
  }
  const linked: BlockHeader[] = [first];
  for (let index = 1; index < headers.length; index++) {
    const header = headers[index]!;
    const previous = linked[linked.length - 1]!;
    if (header.number !== previous.number + 1n || header.parentHash !== previous.hash) break;
    linked.push(header);
  }
  return { linked, tipMismatch: false };
}

/**
 * The highest kept block that is still canonical, given the node's current hash at each kept
 * height (`canonical`; a height the node no longer has is simply absent). Undefined when none is:
 * the reorganisation is deeper than the window, which the configured depths say cannot happen.
 */
export function findCommonAncestor(
  window: readonly BlockRef[],
  canonical: ReadonlyMap<bigint, Hex>,
): BlockRef | undefined {
  for (let index = window.length - 1; index >= 0; index--) {
    const block = window[index]!;
    if (canonical.get(block.number) === block.hash) return block;
  }
  return undefined;
}

/** The window after publishing `blocks` on top of it, keeping the newest `size` blocks. */
export function extendWindow<E>(
  window: readonly WindowBlock<E>[],
  blocks: readonly WindowBlock<E>[],
  size: number,
): WindowBlock<E>[] {
  const next = [...window, ...blocks];
  return next.length > size ? next.slice(next.length - size) : next;
}

/** Splits the window at the common ancestor: what stays canonical and what the fork orphaned (oldest first). */
export function splitAtAncestor<E>(
  window: readonly WindowBlock<E>[],
  ancestor: BlockRef,
): { kept: WindowBlock<E>[]; orphaned: WindowBlock<E>[] } {
  const at = window.findIndex((entry) => entry.block.number === ancestor.number && entry.block.hash === ancestor.hash);
  if (at < 0) throw new Error(`block ${ancestor.number} (${ancestor.hash}) is not in the window`);
  return { kept: window.slice(0, at + 1), orphaned: window.slice(at + 1) };
}
