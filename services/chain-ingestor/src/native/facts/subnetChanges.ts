import { ROOT_NETUID } from "@platform/subtensor";
import type { Hex } from "viem";
import { accountField, netuidField, tupleFields } from "../node/eventFields.js";
import type { RuntimeEvent } from "../node/runtimeEvent.js";
import { SUBTENSOR_EVENTS } from "./subtensorEvents.js";

/**
 * Which subnets' settings (SubnetSnapshot) and metagraphs (ValidatorSetSnapshot) a block may have
 * changed, from its events and what its block step did. Anything not understood marks everything:
 * a wasted read costs a little, a missed change would stand until the next full read.
 */
export interface SubnetChanges {
  details: ReadonlySet<number> | "all";
  /** Metagraphs whose make-up changed (registrations, takes, identities): read whole. */
  metagraphs: ReadonlySet<number> | "all";
  /** Metagraphs whose scores or stakes moved (epochs, weights, stake): those read again, the rest kept. */
  scores: ReadonlySet<number> | "all";
  /**
   * Hotkeys whose root stake may have moved (an epoch's root dividends to the subnet's hotkeys, a
   * stake on root): every metagraph they sit on shows it, and only that (the neurons' root stake),
   * so those metagraphs need only these hotkeys' root stake read again. Empty with `scores` "all".
   */
  rootStakes: ReadonlySet<Hex>;
}

export interface SubnetChangeInput {
  events: readonly RuntimeEvent[];
  /** Subnets whose epoch ran in the block: their scores, and their hotkeys' stakes (root dividends too), moved. */
  epochs: readonly number[];
  /** Subnets whose registration terms the block step adjusted (`LastAdjustmentBlock` is the block): burn and difficulty moved. */
  adjustments: readonly number[];
  /** The subnets each hotkey holds a UID on, and each coldkey owns a registered hotkey on, as last read. */
  subnetsOfHotkey(hotkey: Hex): readonly number[];
  subnetsOfColdkey(coldkey: Hex): readonly number[];
  /** The hotkeys holding a UID on a subnet, as last read. */
  hotkeysOf(netuid: number): readonly Hex[];
}

export function subnetChangesOf(input: SubnetChangeInput): SubnetChanges {
  const details = new Set<number>(input.adjustments);
  const metagraphs = new Set<number>();
  const scores = new Set<number>();
  const rootStakes = new Set<Hex>();
  const subnetsOf = (value: unknown, into: Set<number>) => {
    const hotkey = accountField(value);
    if (hotkey !== undefined) for (const netuid of input.subnetsOfHotkey(hotkey.publicKey as Hex)) into.add(netuid);
  };
  for (const netuid of input.epochs) {
    scores.add(netuid);
    // The epoch pays its validators' root dividends as root stake, which every metagraph they sit on
    // shows: root's metagraph is read again, the others get those hotkeys' root stake only.
    scores.add(ROOT_NETUID);
    for (const hotkey of input.hotkeysOf(netuid)) rootStakes.add(hotkey);
  }
  let everything = false;
  for (const event of input.events) {
    if (event.pallet !== "SubtensorModule") continue;
    const fields = Array.isArray(event.data) ? (event.data as readonly unknown[]) : [event.data];
    const firstNetuid = netuidField(fields[0]);
    const effect = SUBTENSOR_EVENTS.get(event.name)?.subnets;
    if (effect === "settings" && firstNetuid !== undefined) {
      details.add(firstNetuid);
      if (event.name === "NetworkAdded") metagraphs.add(firstNetuid);
    } else if (effect === "neurons" && firstNetuid !== undefined) {
      if (event.name === "WeightsSet") scores.add(firstNetuid);
      // An axon is the neuron's own (`Axons[netuid, hotkey]`): the metagraph only.
      else if (event.name === "AxonServed") metagraphs.add(firstNetuid);
      else {
        metagraphs.add(firstNetuid);
        details.add(firstNetuid);
      }
    } else if (event.name === "StakeAdded" || event.name === "StakeRemoved") {
      const stake = tupleFields(event.data, 5);
      const netuid = netuidField(stake?.[4]);
      if (netuid === undefined) everything = true;
      else stakeMoved(netuid, stake?.[1]);
    } else if (event.name === "StakeMoved") {
      const move = tupleFields(event.data, 6) ?? tupleFields(event.data, 5);
      const [origin, destination] = [netuidField(move?.[2]), netuidField(move?.[4])];
      if (origin === undefined || destination === undefined) everything = true;
      else {
        stakeMoved(origin, move?.[1]);
        stakeMoved(destination, move?.[3]);
      }
    } else if (typeof effect === "object") subnetsOf(fields[effect.hotkeyField], metagraphs);
    else if (effect === "coldkey") {
      const coldkey = accountField(fields[0]);
      if (coldkey === undefined) everything = true;
      else for (const netuid of input.subnetsOfColdkey(coldkey.publicKey as Hex)) metagraphs.add(netuid);
    } else if (effect !== "nothing") everything = true;
  }
  return everything
    ? { details: "all", metagraphs: "all", scores: "all", rootStakes: new Set() }
    : { details, metagraphs, scores, rootStakes };

  /** A stake change moves the hotkey's stake on the subnet, and on root its root stake, shown on every metagraph it sits on. */
  function stakeMoved(netuid: number, hotkey: unknown): void {
    scores.add(netuid);
    const account = accountField(hotkey);
    if (netuid === ROOT_NETUID && account !== undefined) rootStakes.add(account.publicKey as Hex);
  }
}
