import type { BlockHeader } from "./blocks.js";

/** What the follower asks the node. */
export interface HeaderReader {
  latestBlockNumber(): Promise<bigint>;
  /** Headers at the given heights, in the order asked; a height the node does not have yet is left out. */
  headersAt(numbers: readonly bigint[]): Promise<BlockHeader[]>;
}
