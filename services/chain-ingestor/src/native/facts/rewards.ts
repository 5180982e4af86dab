import type { PositionReward } from "@platform/proto/events/v1/chain_network";
import { accountFromPublicKey, ROOT_NETUID } from "@platform/subtensor";
import type { Hex } from "viem";
import { accountField, amountField, netuidField, tupleFields } from "../node/eventFields.js";
import type { RuntimeEvent } from "../node/runtimeEvent.js";
import { shareValue } from "../node/stakeInfo.js";
import type { HolderEntry, HolderState, SubnetHolders } from "./holders.js";
import { SUBTENSOR_EVENTS } from "./subtensorEvents.js";

/**
 * Staking income per position at an epoch block. No runtime event names it: an epoch raises a
 * hotkey's pool (`TotalHotkeyAlpha`), and with it the value of every coldkey's shares. The income
 * of a position in the block is its value at the end of the block less its value at the end of the
 * parent block, less the alpha the block's `StakeAdded` events gave it, plus the alpha its
 * `StakeRemoved` events took. The values are those the holder states publish (the runtime's share
 * arithmetic), so rewards add up with the balance points.
 */

/** `<netuid>:<hotkey><coldkey>`: one position. */
export const positionKey = (netuid: number, hotkey: Hex, coldkey: Hex): string => `${netuid}:${hotkey}${coldkey}`;

/** What the block's events did to positions, besides an epoch. */
export interface BlockStakeFlows {
  /** Alpha added (positive) or removed (negative) per position by `StakeAdded` / `StakeRemoved`. */
  flows: ReadonlyMap<string, bigint>;
  /** Positions whose change the events cannot split into income and flow (a stake move's legs). */
  unexplained: ReadonlySet<string>;
  /** Coldkeys named by a stake event that did not decode: none of their positions is decided. */
  unexplainedColdkeys: ReadonlySet<Hex>;
  /** An event the holder states cannot bound (a swap of keys, an unknown SubtensorModule event): nothing is decided. */
  undecidable: boolean;
}

/** The stake flows of a block's runtime events (spec 218's StakeAdded/StakeRemoved: coldkey, hotkey, TAO, alpha, netuid). */
export function stakeFlowsOf(events: readonly RuntimeEvent[]): BlockStakeFlows {
  const flows = new Map<string, bigint>();
  const unexplained = new Set<string>();
  const unexplainedColdkeys = new Set<Hex>();
  let undecidable = false;
  for (const event of events) {
    if (event.pallet !== "SubtensorModule") continue;
    const effect = SUBTENSOR_EVENTS.get(event.name);
    if (effect?.positions === undefined) {
      undecidable = true;
      continue;
    }
    if (effect.positions !== "stake") continue;
    const fields = Array.isArray(event.data) ? (event.data as unknown[]) : [];
    if (event.name === "StakeAdded" || event.name === "StakeRemoved") {
      const tuple = tupleFields(event.data, 5);
      const coldkey = accountField(tuple?.[0]);
      const hotkey = accountField(tuple?.[1]);
      const alpha = amountField(tuple?.[3]);
      const netuid = netuidField(tuple?.[4]);
      if (coldkey === undefined || hotkey === undefined || alpha === undefined || netuid === undefined) {
        const named = accountField(fields[0]);
        if (named === undefined) undecidable = true;
        else unexplainedColdkeys.add(named.publicKey as Hex);
        continue;
      }
      const key = positionKey(netuid, hotkey.publicKey as Hex, coldkey.publicKey as Hex);
      flows.set(key, (flows.get(key) ?? 0n) + (event.name === "StakeAdded" ? alpha : -alpha));
      continue;
    }
    // StakeMoved (coldkey, origin hotkey, origin netuid, destination hotkey, destination netuid[, TAO]):
    // spec 218 emits the destination's StakeAdded but no StakeRemoved for the origin.
    const coldkey = accountField(fields[0]);
    const hotkey = accountField(fields[1]);
    const netuid = netuidField(fields[2]);
    const destinationHotkey = accountField(fields[3]);
    const destinationNetuid = netuidField(fields[4]);
    if (coldkey === undefined) {
      undecidable = true;
      continue;
    }
    if (
      hotkey === undefined ||
      netuid === undefined ||
      destinationHotkey === undefined ||
      destinationNetuid === undefined
    ) {
      unexplainedColdkeys.add(coldkey.publicKey as Hex);
      continue;
    }
    unexplained.add(positionKey(netuid, hotkey.publicKey as Hex, coldkey.publicKey as Hex));
    unexplained.add(positionKey(destinationNetuid, destinationHotkey.publicKey as Hex, coldkey.publicKey as Hex));
  }
  return { flows, unexplained, unexplainedColdkeys, undecidable };
}

export interface RewardInputs {
  /** The holder states at the end of the parent block and of the block. */
  parent: HolderState;
  state: HolderState;
  /** Subnets whose epoch ran in the block (root's positions, paid root dividends, are decided with them). */
  epochs: readonly number[];
  stakes: BlockStakeFlows;
  /** Each subnet's pool price at the block, TAO per alpha with at most 9 decimals (PoolSnapshot.price_tao). */
  priceOf(netuid: number): string | undefined;
}

/**
 * Decides the rewards of an epoch block, per coldkey, ordered by netuid then hotkey: for each
 * position of the subnets that stepped (and of root), income = value after - value before - flows.
 * Only positions that existed at the end of the parent block earn (the epoch runs as the block
 * starts, before any extrinsic: a position opened in the block was not there to be paid); positions
 * with zero income, or whose change the block's events cannot explain, are left out.
 */
export function decideRewards(inputs: RewardInputs): Map<Hex, PositionReward[]> {
  const rewards = new Map<Hex, PositionReward[]>();
  const { parent, state, stakes } = inputs;
  if (inputs.epochs.length === 0 || stakes.undecidable || parent.specVersion !== state.specVersion) return rewards;
  const netuids = [...new Set([ROOT_NETUID, ...inputs.epochs])].sort((a, b) => a - b);
  for (const netuid of netuids) {
    const [before, after] = [parent.subnets.get(netuid), state.subnets.get(netuid)];
    if (before === undefined || after === undefined || before === after) continue;
    const price = netuid === ROOT_NETUID ? "1" : inputs.priceOf(netuid);
    const found: Array<{ coldkey: Hex; hotkey: Hex; alpha: bigint }> = [];
    for (const [key, previous] of before.entries) {
      if (stakes.unexplainedColdkeys.has(previous.coldkey)) continue;
      const position = positionKey(netuid, previous.hotkey, previous.coldkey);
      if (stakes.unexplained.has(position)) continue;
      const current = after.entries.get(key);
      // Most positions of a large subnet sit on pools the epoch did not pay: no value to compute.
      const change =
        current?.shareBits === previous.shareBits && samePool(before, after, previous.hotkey)
          ? 0n
          : positionValue(after, current) - positionValue(before, previous);
      const alpha = change - (stakes.flows.get(position) ?? 0n);
      if (alpha !== 0n) found.push({ coldkey: previous.coldkey, hotkey: previous.hotkey, alpha });
    }
    found.sort((a, b) => (a.hotkey < b.hotkey ? -1 : a.hotkey > b.hotkey ? 1 : 0));
    for (const { coldkey, hotkey, alpha } of found) {
      const list = rewards.get(coldkey) ?? [];
      list.push({
        netuid,
        hotkey: accountFromPublicKey(hotkey),
        alphaNalpha: alpha.toString(),
        taoValueRao: price === undefined ? "0" : mulByPrice(alpha, price).toString(),
      });
      rewards.set(coldkey, list);
    }
  }
  return rewards;
}

function samePool(before: SubnetHolders, after: SubnetHolders, hotkey: Hex): boolean {
  const [left, right] = [before.pools.get(hotkey), after.pools.get(hotkey)];
  return (
    left !== undefined &&
    right !== undefined &&
    left.alpha === right.alpha &&
    left.sharesBits === right.sharesBits &&
    left.arithmetic === right.arithmetic
  );
}

function positionValue(subnet: SubnetHolders, entry: HolderEntry | undefined): bigint {
  if (entry === undefined) return 0n;
  const pool = subnet.pools.get(entry.hotkey);
  return pool === undefined ? 0n : shareValue(pool.alpha, pool.sharesBits, entry.shareBits, pool.arithmetic);
}

const PRICE = /^(\d+)(?:\.(\d{1,9}))?$/;

/** amount × a decimal price of at most 9 decimals, rounded toward zero (as the accounts' valuation). */
export function mulByPrice(amount: bigint, price: string): bigint {
  const match = PRICE.exec(price);
  if (match === null) return 0n;
  const decimals = (match[2] ?? "").padEnd(9, "0");
  const units = BigInt(match[1]!) * 1_000_000_000n + BigInt(decimals);
  // BigInt division truncates toward zero, for negative amounts too.
  return (amount * units) / 1_000_000_000n;
}
