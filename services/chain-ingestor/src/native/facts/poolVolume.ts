import { amountField, netuidField, publicKeyField, tupleFields } from "../node/eventFields.js";
import { eventName, type RuntimeEvent } from "../node/runtimeEvent.js";

const BUY = "SubtensorModule.StakeAdded";
const SELL = "SubtensorModule.StakeRemoved";

/** A pool's order flow in one block. */
export interface BlockPoolFlow {
  /** TAO swapped in by `StakeAdded` events (alpha bought), rao. */
  buyRao: bigint;
  /** TAO paid out by `StakeRemoved` events (alpha sold), rao. */
  sellRao: bigint;
  buys: number;
  sells: number;
  /** The coldkeys (public keys, lowercase hex) of the buys and of the sells, each once. */
  buyers: Set<string>;
  sellers: Set<string>;
}

/**
 * Each pool's order flow in a block, by netuid, from its runtime events: its
 * `SubtensorModule.StakeAdded` events are buys (TAO swapped in), its `StakeRemoved` events sells
 * (TAO paid out); both add to the pool's volume, as later runtimes' `SubnetVolume` counts them. A
 * stake move, swap or transfer emits such events for its legs, so those count as well, each leg by
 * the coldkey its event names. The events are (coldkey, hotkey, tao_amount, alpha_amount, netuid)
 * in spec 218; one of another shape is not counted (as decodeNativeActivities does not read it as
 * a stake either).
 */
export function blockPoolFlows(events: readonly RuntimeEvent[]): Map<number, BlockPoolFlow> {
  const flows = new Map<number, BlockPoolFlow>();
  for (const event of events) {
    const name = eventName(event);
    if (name !== BUY && name !== SELL) continue;
    const fields = tupleFields(event.data, 5);
    const coldkey = publicKeyField(fields?.[0]);
    const tao = amountField(fields?.[2]);
    const alpha = amountField(fields?.[3]);
    const netuid = netuidField(fields?.[4]);
    if (coldkey === undefined || tao === undefined || alpha === undefined || netuid === undefined) continue;
    let flow = flows.get(netuid);
    if (flow === undefined) {
      flow = { buyRao: 0n, sellRao: 0n, buys: 0, sells: 0, buyers: new Set(), sellers: new Set() };
      flows.set(netuid, flow);
    }
    if (name === BUY) {
      flow.buyRao += tao;
      flow.buys += 1;
      flow.buyers.add(coldkey);
    } else {
      flow.sellRao += tao;
      flow.sells += 1;
      flow.sellers.add(coldkey);
    }
  }
  return flows;
}
