import type { Finality as FinalityDepths } from "@platform/chain";
import { Finality } from "@platform/proto/common/v1/common";

/**
 * The finality of a block given the node's latest block and the chain's configured depths: a block
 * at least `finalizedDepth` below the head is finalized, at least `safeDepth` below it safe.
 */
export function finalityAt(blockNumber: bigint, latest: bigint, depths: FinalityDepths): Finality {
  const depth = latest - blockNumber;
  if (depth >= BigInt(depths.finalizedDepth)) return Finality.FINALITY_FINALIZED;
  if (depth >= BigInt(depths.safeDepth)) return Finality.FINALITY_SAFE;
  return Finality.FINALITY_LATEST;
}

/** The highest block at or past `depth` below the head, never below block 0. */
export function blockAtDepth(latest: bigint, depth: number): bigint {
  const number = latest - BigInt(depth);
  return number < 0n ? 0n : number;
}
