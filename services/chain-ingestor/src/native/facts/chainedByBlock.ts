import type { Hex } from "viem";
import type { BlockHeader } from "../../follower/blocks.js";
import type { RuntimeEvent } from "../node/runtimeEvent.js";

/** Values kept per block hash by default; a fork's blocks each keep their own. */
const KEPT = 1_024;

export interface ChainedByBlockOptions<T, I = readonly RuntimeEvent[]> {
  /** The value read in full from the block's state (a key scan: slow). */
  full(header: BlockHeader, input: Promise<I>): Promise<T>;
  /**
   * The value after a block, from its parent's and what the block says (its events by default);
   * undefined when the block must be read in full after all.
   */
  next(parent: T, input: I, header: BlockHeader): T | undefined | Promise<T | undefined>;
  /** Blocks read in full even when the parent's value is known (recounts). */
  fullAt(header: BlockHeader): boolean;
  /**
   * How many blocks' values to keep (1,024 by default). A large value (every holder of every
   * subnet) keeps fewer: a block whose parent's value is gone is read in full, which only a
   * reorganisation deeper than this or a restart causes.
   */
  keep?: number;
}

/**
 * A value of the chain's state kept from block to block by the events that change it, instead of
 * a full read at every block: a block whose parent's value is known applies its own events to it;
 * any other (the first block read, or after a gap) and those `fullAt` names are read in full.
 * Blocks read side by side register in chain order and wait on their parent's value rather than
 * each reading in full; a failed value is forgotten, so the block's next reading tries again.
 */
export function chainedByBlock<T, I = readonly RuntimeEvent[]>(options: ChainedByBlockOptions<T, I>) {
  const values = new Map<Hex, Promise<T>>();
  const kept = options.keep ?? KEPT;
  const keep = (hash: Hex, value: Promise<T>) => {
    if (values.size >= kept) values.delete(values.keys().next().value!);
    values.set(hash, value);
    value.catch(() => values.delete(hash));
    return value;
  };
  return {
    /** The value after a block already read or being read, if it is still kept. */
    known: (hash: Hex): Promise<T> | undefined => values.get(hash),
    /** Call it before the block's first await, so that blocks read side by side register in chain order. */
    at(header: BlockHeader, input: Promise<I>): Promise<T> {
      // Not every path awaits the input: a failed read must not go unhandled (the block's own read reports it).
      input.catch(() => undefined);
      const known = values.get(header.hash);
      if (known !== undefined) return known;
      const parent = values.get(header.parentHash);
      if (parent === undefined || options.fullAt(header)) return keep(header.hash, options.full(header, input));
      return keep(
        header.hash,
        (async () => {
          const before = await parent.catch(() => undefined);
          const after = before === undefined ? undefined : await options.next(before, await input, header);
          return after ?? options.full(header, input);
        })(),
      );
    },
  };
}
