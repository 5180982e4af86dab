import type { Hex } from "viem";

/**
 * A runtime event as the native source's decoders see it, whatever client decoded it: its place in
 * the block, its name as the block's own metadata gives it, and its fields (an object for named
 * fields, an array for a tuple variant, the value itself for a single unnamed field).
 */
export interface RuntimeEvent {
  /** Position in the block's `System.Events`. */
  index: number;
  /** The extrinsic it belongs to (phase ApplyExtrinsic); absent for initialization and finalization. */
  extrinsicIndex?: number;
  pallet: string;
  name: string;
  data: unknown;
}

/** A block's facts the activity decoder reads: its extrinsics' hashes and its events. */
export interface NativeBlockFacts {
  number: bigint;
  /** blake2_256 of each extrinsic's encoding, by extrinsic index. */
  extrinsicHashes: readonly Hex[];
  events: readonly RuntimeEvent[];
}

/** "<Pallet>.<Event>". */
export const eventName = (event: Pick<RuntimeEvent, "pallet" | "name">): string => `${event.pallet}.${event.name}`;
