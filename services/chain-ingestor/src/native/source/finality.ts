import type { Finality as FinalityDepths } from "@platform/chain";
import { Finality } from "@platform/proto/common/v1/common";
import { finalityAt } from "../../follower/finality.js";

/**
 * A native block's finality: finalized only once the network finalized it (GRANDPA's finalized
 * head) and it lies the configured depth below the best block; safe by depth. The depth rule alone
 * is what a node that finalizes at once (chopsticks) can be tested with.
 */
export function nativeFinality(
  blockNumber: bigint,
  best: bigint,
  finalizedHead: bigint | undefined,
  depths: FinalityDepths,
): Finality {
  const byDepth = finalityAt(blockNumber, best, depths);
  if (byDepth === Finality.FINALITY_FINALIZED && (finalizedHead === undefined || blockNumber > finalizedHead))
    return Finality.FINALITY_SAFE;
  return byDepth;
}

/**
 * The newest block nativeFinality calls finalized while `best` is the best block: the finalized
 * head, no higher than the finalized depth below the best block. Undefined while the finalized head
 * is unknown or no block is that deep yet: published with each block's network totals, so readers
 * can tell every block's finality from the newest snapshot (issue 41, reads at a finalized block).
 */
export function finalizedThrough(
  best: bigint,
  finalizedHead: bigint | undefined,
  depths: FinalityDepths,
): bigint | undefined {
  const deepEnough = best - BigInt(depths.finalizedDepth);
  if (finalizedHead === undefined || deepEnough < 0n) return undefined;
  return finalizedHead < deepEnough ? finalizedHead : deepEnough;
}
