import type { ChainRef } from "@platform/proto/common/v1/common";
import type { NeuronRootStake, NeuronState } from "@platform/proto/events/v1/chain_network";
import { eventTypeOf } from "@platform/proto/topics";
import type { Hex } from "viem";
import type { RuntimeAt } from "../node/runtimeAt.js";
import { optional } from "../node/storageColumns.js";
import { type NetworkRecord, netuidKey, networkEventId } from "../records/networkRecord.js";
import type { EmissionDetails } from "./emissions.js";
import { readMetagraphs, refreshMetagraphs, refreshRootStakes } from "./metagraph.js";
import type { SubnetChanges } from "./subnetChanges.js";
import { readSubnetDetails, type SubnetDetails } from "./subnetDetails.js";

/**
 * Every subnet's settings (SubnetSnapshot) and metagraph (ValidatorSetSnapshot) after a block. The
 * first block is read whole; after it, a block re-reads only the subnets its events and block step
 * name (subnetChanges.ts), and the others carry over unchanged, so they are published only when
 * they change. Never mutated: the blocks of a fork share what did not change.
 */
export interface SubnetsState {
  /** The runtime the state was read with: a block of another runtime is read whole. */
  specVersion: number;
  details: ReadonlyMap<number, SubnetDetails>;
  metagraphs: ReadonlyMap<number, readonly NeuronState[]>;
  /** What this block changed (everything after a whole read). */
  changedDetails: ReadonlySet<number>;
  changedMetagraphs: ReadonlySet<number>;
  /**
   * Metagraphs of which the block moved only root stakes, with the neurons that moved: published
   * as ValidatorRootStakes, not whole (an epoch block moves them on ~100 subnets). Not in
   * `changedMetagraphs`.
   */
  rootStakeChanges: ReadonlyMap<number, readonly NeuronRootStake[]>;
}

/** What the emissions say of each subnet this block, which a subnet's settings show. */
export type EmissionEnabled = ReadonlyMap<number, boolean>;

export async function readAllSubnets(
  runtime: RuntimeAt,
  netuids: readonly number[],
  emissionEnabled: EmissionEnabled,
): Promise<SubnetsState> {
  const [details, metagraphs] = await Promise.all([
    readSubnetDetails(runtime, netuids, emissionEnabled),
    readMetagraphs(runtime, netuids),
  ]);
  return {
    specVersion: runtime.specVersion,
    details,
    metagraphs,
    changedDetails: new Set(netuids),
    changedMetagraphs: new Set(netuids),
    rootStakeChanges: new Map(),
  };
}

/** The state after a block from its parent's; undefined when the block must be read whole (another runtime). */
export async function nextSubnets(
  runtime: RuntimeAt,
  parent: SubnetsState,
  block: { netuids: readonly number[]; changes: SubnetChanges; emissionEnabled: EmissionEnabled },
): Promise<SubnetsState | undefined> {
  if (runtime.specVersion !== parent.specVersion) return undefined;
  const { netuids, changes } = block;
  // An added subnet has no metagraph to refresh: `dirty` reads it whole.
  const added = netuids.filter((netuid) => !parent.details.has(netuid));
  const dirty = (set: ReadonlySet<number> | "all") =>
    netuids.filter((netuid) => set === "all" || set.has(netuid) || added.includes(netuid));
  const [detailNetuids, metagraphNetuids] = [dirty(changes.details), dirty(changes.metagraphs)];
  const scoreNetuids = dirty(changes.scores).filter((netuid) => !metagraphNetuids.includes(netuid));
  const rootStakeNetuids = rootStakeSubnets(parent, changes.rootStakes).filter(
    (netuid) => netuids.includes(netuid) && !metagraphNetuids.includes(netuid) && !scoreNetuids.includes(netuid),
  );
  const [readDetails, readGraphs, refreshedGraphs, rootStaked] = await Promise.all([
    readSubnetDetails(runtime, detailNetuids, block.emissionEnabled),
    readMetagraphs(runtime, metagraphNetuids),
    refreshMetagraphs(runtime, parent.metagraphs, scoreNetuids),
    refreshRootStakes(runtime, parent.metagraphs, rootStakeNetuids, changes.rootStakes),
  ]);

  const details = new Map<number, SubnetDetails>();
  const metagraphs = new Map<number, readonly NeuronState[]>();
  const changedDetails = new Set<number>(detailNetuids);
  for (const netuid of netuids) {
    let subnet = readDetails.get(netuid) ?? parent.details.get(netuid)!;
    // Whether a subnet receives emission moves with every block's emission, without an event.
    const enabled = block.emissionEnabled.get(netuid);
    if (enabled !== undefined && enabled !== subnet.emissionEnabled) {
      subnet = { ...subnet, emissionEnabled: enabled };
      changedDetails.add(netuid);
    }
    details.set(netuid, subnet);
    metagraphs.set(
      netuid,
      readGraphs.get(netuid) ?? refreshedGraphs.get(netuid) ?? rootStaked.get(netuid) ?? parent.metagraphs.get(netuid)!,
    );
  }
  const next: SubnetsState = {
    specVersion: runtime.specVersion,
    details,
    metagraphs,
    changedDetails,
    // A refreshed metagraph that did not move is the parent's own (refreshMetagraphs): unchanged.
    changedMetagraphs: new Set([
      ...metagraphNetuids,
      ...scoreNetuids.filter((netuid) => refreshedGraphs.get(netuid) !== parent.metagraphs.get(netuid)),
    ]),
    rootStakeChanges: rootStakeMoves(parent, rootStaked, rootStakeNetuids),
  };
  // Scores refreshed and metagraphs kept hold the same neurons (hotkeys, coldkeys) as the parent's:
  // the parent's indexes stand. Built per block, at mainnet size they were ~7 MB a block, 64 kept.
  if (metagraphNetuids.length === 0 && netuids.length === parent.metagraphs.size)
    indexes.set(next, subnetIndexes(parent));
  return next;
}

/** The neurons whose root stake moved on each metagraph refreshRootStakes changed (same neurons, same order). */
function rootStakeMoves(
  parent: SubnetsState,
  rootStaked: ReadonlyMap<number, readonly NeuronState[]>,
  netuids: readonly number[],
): Map<number, NeuronRootStake[]> {
  const moves = new Map<number, NeuronRootStake[]>();
  for (const netuid of netuids) {
    const after = rootStaked.get(netuid);
    const before = parent.metagraphs.get(netuid);
    if (after === undefined || before === undefined || after === before) continue;
    const moved: NeuronRootStake[] = [];
    after.forEach((neuron, index) => {
      if (neuron === before[index]) return;
      moved.push({
        uid: neuron.uid,
        hotkey: neuron.hotkey?.publicKey ?? "",
        ...(neuron.rootStakeRao === undefined ? {} : { rootStakeRao: neuron.rootStakeRao }),
      });
    });
    if (moved.length > 0) moves.set(netuid, moved);
  }
  return moves;
}

/** The subnets where any of the hotkeys holds a UID, in the state's metagraphs. */
function rootStakeSubnets(state: SubnetsState, hotkeys: ReadonlySet<Hex>): number[] {
  if (hotkeys.size === 0) return [];
  const { subnetsOfHotkey } = subnetIndexes(state);
  return [...new Set([...hotkeys].flatMap((hotkey) => subnetsOfHotkey(hotkey)))].sort((a, b) => a - b);
}

export interface SubnetIndexes {
  subnetsOfHotkey(hotkey: Hex): readonly number[];
  subnetsOfColdkey(coldkey: Hex): readonly number[];
  hotkeysOf(netuid: number): readonly Hex[];
}

const indexes = new WeakMap<SubnetsState, SubnetIndexes>();

/** Who sits where in the state's metagraphs (built once per state, when a block asks). */
export function subnetIndexes(state: SubnetsState): SubnetIndexes {
  const known = indexes.get(state);
  if (known !== undefined) return known;
  const byHotkey = new Map<Hex, number[]>();
  const byColdkey = new Map<Hex, number[]>();
  const hotkeys = new Map<number, Hex[]>();
  const add = (index: Map<Hex, number[]>, key: Hex, netuid: number) => {
    const list = index.get(key);
    if (list === undefined) index.set(key, [netuid]);
    else list.push(netuid);
  };
  for (const [netuid, neurons] of state.metagraphs) {
    const ofSubnet: Hex[] = [];
    for (const neuron of neurons) {
      const hotkey = neuron.hotkey?.publicKey as Hex | undefined;
      if (hotkey === undefined) continue;
      ofSubnet.push(hotkey);
      add(byHotkey, hotkey, netuid);
      const coldkey = neuron.coldkey?.publicKey as Hex | undefined;
      if (coldkey !== undefined) add(byColdkey, coldkey, netuid);
    }
    hotkeys.set(netuid, ofSubnet);
  }
  const built: SubnetIndexes = {
    subnetsOfHotkey: (hotkey) => byHotkey.get(hotkey) ?? [],
    subnetsOfColdkey: (coldkey) => byColdkey.get(coldkey) ?? [],
    hotkeysOf: (netuid) => hotkeys.get(netuid) ?? [],
  };
  indexes.set(state, built);
  return built;
}

/**
 * The block's subnet records, keyed `netuid:<n>`: every subnet's emission (it moves every block),
 * and the settings and metagraphs of the subnets the block changed (a metagraph of which only root
 * stakes moved as those root stakes).
 */
export function subnetRecords(
  state: SubnetsState | undefined,
  emissions: ReadonlyMap<number, EmissionDetails>,
  context: { chainId: number; ref: ChainRef },
): NetworkRecord[] {
  const records: NetworkRecord[] = [];
  const push = (netuid: number, payload: NetworkRecord["payload"]) => {
    const key = netuidKey(netuid);
    const eventType = eventTypeOf(payload);
    records.push({
      topic: "chain.network.v1",
      key,
      eventId: networkEventId(context.chainId, context.ref.blockHash, eventType, key),
      eventType,
      ref: context.ref,
      payload,
    });
  };
  for (const [netuid, emission] of [...emissions].sort(([a], [b]) => a - b)) {
    push(netuid, { event: { $case: "emissionSnapshot", value: { ref: context.ref, ...emission } } });
  }
  if (state === undefined) return records;
  for (const netuid of [...state.changedDetails].sort((a, b) => a - b)) {
    const details = state.details.get(netuid);
    if (details !== undefined)
      push(netuid, { event: { $case: "subnetSnapshot", value: { ref: context.ref, ...details } } });
  }
  for (const netuid of [...state.changedMetagraphs].sort((a, b) => a - b)) {
    const neurons = state.metagraphs.get(netuid);
    if (neurons !== undefined)
      push(netuid, {
        event: {
          $case: "validatorSetSnapshot",
          value: {
            ref: context.ref,
            netuid,
            neurons: [...neurons],
            // The epoch and root's weight the dividends were split with (the yield index reads them).
            ...optional("lastEpochBlock", emissions.get(netuid)?.lastEpochBlock),
            ...optional("taoWeight", emissions.get(netuid)?.taoWeight),
          },
        },
      });
  }
  for (const [netuid, stakes] of [...state.rootStakeChanges].sort(([a], [b]) => a - b))
    push(netuid, { event: { $case: "validatorRootStakes", value: { ref: context.ref, netuid, stakes: [...stakes] } } });
  return records;
}
