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
