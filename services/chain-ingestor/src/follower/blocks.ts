import type { Hex } from "viem";

/** A block as the follower needs it: its place in the chain and its clock. */
export interface BlockHeader {
  number: bigint;
  hash: Hex;
  parentHash: Hex;
  /** Unix seconds (the chain's clock). */
  timestamp: bigint;
  /** Unix milliseconds, where the chain's clock has them (Substrate's `Timestamp.Now`; EVM blocks keep seconds). */
  timestampMs?: bigint;
}

/** A block's identity: what the checkpoint keeps of each recent block. */
export interface BlockRef {
  number: bigint;
  hash: Hex;
}

/**
 * A recent block and what was published for it. The events are kept so that a reorganisation that
 * orphans the block can name each of them in a removal.
 */
export interface WindowBlock<E> {
  block: BlockRef;
  events: readonly E[];
}

/** Kept blocks read again after a restart: their events, and the blocks the node no longer knows. */
export interface RecoveredWindow<E> {
  window: WindowBlock<E>[];
  unknown: BlockRef[];
}
