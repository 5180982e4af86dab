import { amountField, netuidField, tupleFields } from "../node/eventFields.js";
import { eventName, type RuntimeEvent } from "../node/runtimeEvent.js";

/** The events whose TAO amount is a swap through their subnet's pool. */
const SWAPS = new Set(["SubtensorModule.StakeAdded", "SubtensorModule.StakeRemoved"]);

/**
 * The TAO each pool swapped in a block, by netuid, from its runtime events: the sum of the TAO
 * amounts of its `SubtensorModule.StakeAdded` (TAO swapped in) and `StakeRemoved` (TAO paid out)
 * events, both of which add, as later runtimes' `SubnetVolume` counts them. A stake move, swap or
 * transfer emits such events for its legs, so those count as well. The events are
 * (coldkey, hotkey, tao_amount, alpha_amount, netuid) in spec 218; one of another shape is not
 * counted (as decodeNativeActivities does not read it as a stake either).
 */
export function blockPoolVolumes(events: readonly RuntimeEvent[]): Map<number, bigint> {
  const volumes = new Map<number, bigint>();
  for (const event of events) {
    if (!SWAPS.has(eventName(event))) continue;
    const fields = tupleFields(event.data, 5);
    const tao = amountField(fields?.[2]);
    const alpha = amountField(fields?.[3]);
    const netuid = netuidField(fields?.[4]);
    if (tao === undefined || alpha === undefined || netuid === undefined) continue;
    volumes.set(netuid, (volumes.get(netuid) ?? 0n) + tao);
  }
  return volumes;
}
