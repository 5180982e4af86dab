import type { RuntimeAt } from "../node/runtimeAt.js";

/**
 * What a block's step did to each subnet, without an event saying so: the subnets whose stored
 * "last done at" block is this block.
 */
async function steppedAt(
  runtime: RuntimeAt,
  item: string,
  blockNumber: bigint,
  netuids: readonly number[],
): Promise<number[]> {
  const stored = runtime.storage("subtensorModule", item);
  if (stored === undefined || netuids.length === 0) return [];
  const blocks = await stored.multi(netuids);
  return netuids.filter((_netuid, index) => {
    const block = blocks[index];
    return (typeof block === "bigint" || typeof block === "number") && BigInt(block) === blockNumber;
  });
}

/** The subnets whose epoch ran in the block (`LastMechansimStepBlock`, the runtime's spelling). */
export const epochsAt = (runtime: RuntimeAt, blockNumber: bigint, netuids: readonly number[]) =>
  steppedAt(runtime, "lastMechansimStepBlock", blockNumber, netuids);

/** The subnets whose registration burn and difficulty the block adjusted (`LastAdjustmentBlock`). */
export const adjustmentsAt = (runtime: RuntimeAt, blockNumber: bigint, netuids: readonly number[]) =>
  steppedAt(runtime, "lastAdjustmentBlock", blockNumber, netuids);
