import { DecodeError } from "@platform/errors/base";
import type { ChainRef } from "@platform/proto/common/v1/common";
import { HolderCoverage } from "@platform/proto/common/v1/network";
import type { HolderPosition } from "@platform/proto/events/v1/chain_network";
import { holderSetDelta, holderSetDigest } from "@platform/proto/holderSets";
import { eventTypeOf } from "@platform/proto/topics";
import { accountFromPublicKey, ROOT_NETUID } from "@platform/subtensor";
import type { Hex } from "viem";
import { accountField, netuidField, publicKeyField } from "../node/eventFields.js";
import type { RuntimeAt, StorageItem } from "../node/runtimeAt.js";
import type { RuntimeEvent } from "../node/runtimeEvent.js";
import {
  type ColdkeyPosition,
  fixedBits,
  type ShareArithmetic,
  shareArithmeticOf,
  shareValue,
} from "../node/stakeInfo.js";
import { type NetworkRecord, netuidKey, networkEventId } from "../records/networkRecord.js";
import { SUBTENSOR_EVENTS } from "./subtensorEvents.js";

/**
 * Every alpha position of every subnet, from the share pool's storage: `Alpha[(hotkey, coldkey,
 * netuid)]` holds a coldkey's shares of a hotkey's pool on a subnet, `TotalHotkeyAlpha` and
 * `TotalHotkeyShares[(hotkey, netuid)]` value them (stakeInfo.ts `shareValue`). This sees positions
 * on hotkeys that are not registered on the subnet, which no per-neuron read reaches.
 *
 * `Alpha` is keyed hotkey first, so a subnet's positions cannot be listed by a prefix: the whole map
 * is read once (and every `rescanEveryBlocks`, and at a runtime upgrade); after that a block changes
 * only what its events and epochs say (nextHolders).
 */

/** One position: a coldkey's shares (fixed-point bits, value x 2^64) of a hotkey's pool. */
export interface HolderEntry {
  hotkey: Hex;
  coldkey: Hex;
  shareBits: bigint;
}

/** A hotkey's pool on a subnet: `TotalHotkeyAlpha` and `TotalHotkeyShares` (bits), and how the runtime values its shares. */
export interface HotkeyPool {
  alpha: bigint;
  sharesBits: bigint;
  arithmetic: ShareArithmetic;
}

/** One subnet's positions and the pools they are shares of; never mutated (blocks of a fork share them). */
export interface SubnetHolders {
  /** By `<hotkey><coldkey>`. */
  entries: ReadonlyMap<string, HolderEntry>;
  pools: ReadonlyMap<Hex, HotkeyPool>;
}

export interface HolderState {
  /** The runtime the state was read with: a block of another runtime is read in full. */
  specVersion: number;
  subnets: ReadonlyMap<number, SubnetHolders>;
  /** Per subnet, the hotkeys that are some hotkey's parent there (`ParentKeys`): an epoch pays them too. */
  parents: ReadonlyMap<number, ReadonlySet<Hex>>;
  /** The subnets whose positions or values this block may have changed (every subnet after a full read). */
  changed: ReadonlySet<number>;
}

/** A position as published: its value in the subnet's alpha (rao on root). */
export interface HolderValue {
  hotkey: Hex;
  coldkey: Hex;
  alphaNalpha: bigint;
}

/** What a block's events and epochs say about positions. */
export interface HolderChanges {
  /** Hotkeys whose pool on a subnet an event named (stake added, removed, moved). */
  hotkeysBySubnet: ReadonlyMap<number, ReadonlySet<Hex>>;
  /** The coldkeys those events name, by `<hotkey>:<netuid>`: whose entries of the pool they changed. */
  coldkeysByPool: ReadonlyMap<string, ReadonlySet<Hex>>;
  /** Subnets whose epoch ran in the block: every pool of theirs may have been paid (and root, whose stakes take root dividends). */
  epochs: readonly number[];
  /** The subnet set after the block. */
  netuids: readonly number[];
  /** The hotkeys holding a UID on a subnet after the block (its metagraph): an epoch pays them. */
  registered(netuid: number): readonly Hex[];
  /** (parent hotkey, subnet) of the block's `SetChildren` events. */
  newParents: readonly (readonly [Hex, number])[];
  /** An event this reader cannot bound (a hotkey or coldkey swap, an unknown SubtensorModule event): read everything again. */
  readAll: boolean;
}

const entryKey = (hotkey: Hex, coldkey: Hex) => `${hotkey}${coldkey}`;

/**
 * What a block says about positions: the stake events' (hotkey, subnet) pairs, from the activities
 * already decoded (stake touches), the epochs, and whether anything unbounded happened.
 */
export function holderChangesOf(input: {
  stakeTouches: readonly { hotkey: { publicKey: string }; coldkey: { publicKey: string }; netuid: number }[];
  events: readonly RuntimeEvent[];
  epochs: readonly number[];
  netuids: readonly number[];
  registered(netuid: number): readonly Hex[];
}): HolderChanges {
  const hotkeysBySubnet = new Map<number, Set<Hex>>();
  const coldkeysByPool = new Map<string, Set<Hex>>();
  for (const touch of input.stakeTouches) {
    const hotkey = touch.hotkey.publicKey as Hex;
    hotkeysBySubnet.set(touch.netuid, (hotkeysBySubnet.get(touch.netuid) ?? new Set<Hex>()).add(hotkey));
    const pool = poolKey(hotkey, touch.netuid);
    coldkeysByPool.set(pool, (coldkeysByPool.get(pool) ?? new Set<Hex>()).add(touch.coldkey.publicKey as Hex));
  }
  // Stake events are bounded by the stake touches above; any other that may move positions is not.
  const readAll = input.events.some(
    (event) => event.pallet === "SubtensorModule" && SUBTENSOR_EVENTS.get(event.name)?.positions === undefined,
  );
  const newParents: (readonly [Hex, number])[] = [];
  for (const event of input.events) {
    if (event.pallet !== "SubtensorModule" || event.name !== "SetChildren") continue;
    const fields = Array.isArray(event.data) ? (event.data as unknown[]) : [];
    const parent = accountField(fields[0]);
    const netuid = netuidField(fields[1]);
    if (parent !== undefined && netuid !== undefined) newParents.push([parent.publicKey as Hex, netuid]);
  }
  return {
    hotkeysBySubnet,
    coldkeysByPool,
    epochs: input.epochs,
    netuids: input.netuids,
    registered: input.registered,
    newParents,
    readAll,
  };
}

/** Every position of every subnet at the block: the whole `Alpha` map, then the pools of its (hotkey, subnet) pairs. */
export async function readAllHolders(runtime: RuntimeAt, netuids: readonly number[]): Promise<HolderState | undefined> {
  const items = shareItems(runtime);
  if (items === undefined) return undefined;
  const entries = new Map<number, Map<string, HolderEntry>>(netuids.map((netuid) => [netuid, new Map()]));
  for (const [key, value] of await items.alpha.entries()) {
    const entry = alphaEntry(key, value);
    if (entry !== undefined) entries.get(entry.netuid)?.set(entryKey(entry.hotkey, entry.coldkey), entry);
  }
  const subnets = new Map<number, SubnetHolders>();
  const hotkeysOf = (netuid: number) => [...new Set([...entries.get(netuid)!.values()].map((entry) => entry.hotkey))];
  const pools = await readPools(
    items,
    netuids.flatMap((netuid) => hotkeysOf(netuid).map((hotkey) => [hotkey, netuid] as const)),
  );
  for (const netuid of netuids) {
    subnets.set(netuid, {
      entries: entries.get(netuid)!,
      pools: new Map(hotkeysOf(netuid).map((hotkey) => [hotkey, pools.get(poolKey(hotkey, netuid))!])),
    });
  }
  return { specVersion: runtime.specVersion, subnets, parents: await readParents(runtime), changed: new Set(netuids) };
}

/**
 * The positions after a block, from the parent's and what the block says:
 * - a subnet with a stake event or an epoch (and root, at any epoch: root dividends) is dirty;
 * - on a dirty subnet, the pools of every hotkey it knows, every hotkey an event named, and, at its
 *   epoch, its registered hotkeys (`Keys`, paid incentive and take into their owners' positions) and
 *   the owner's hotkey (the owner cut) are read again;
 * - a pool whose `TotalHotkeyShares` moved (or that is new) has had an entry change: the entries
 *   where a block changes them are read (movedEntries: the hotkey's owner, paid at epochs, and the
 *   coldkeys its stake events name); a pool whose entries then do not add up to its shares had
 *   another one change, and its hotkey's entries are read whole (one `Alpha` prefix, every subnet).
 *   Pools whose shares did not move only change the values, which come from the new pools.
 * Subnets added get their positions from the hotkeys that hold them (registration stakes the owner);
 * removed subnets are dropped. Undefined when the block needs a full read instead.
 */
export async function nextHolders(
  runtime: RuntimeAt,
  parent: HolderState,
  changes: HolderChanges,
): Promise<HolderState | undefined> {
  const items = shareItems(runtime);
  if (items === undefined || changes.readAll || runtime.specVersion !== parent.specVersion) return undefined;
  const dirty = new Set<number>(
    [...changes.hotkeysBySubnet.keys(), ...changes.epochs].filter((netuid) => changes.netuids.includes(netuid)),
  );
  if (changes.epochs.length > 0 && changes.netuids.includes(ROOT_NETUID)) dirty.add(ROOT_NETUID);
  const added = changes.netuids.filter((netuid) => !parent.subnets.has(netuid));
  for (const netuid of added) dirty.add(netuid);

  const parents = withNewParents(parent.parents, changes.newParents);
  // The pools a block can have moved: those its stake events name; at a subnet's epoch those it
  // pays (its registered hotkeys, their parents and the owner's hotkey), and on root the same
  // hotkeys' root stake (root dividends). Other pools only change through events.
  const candidates = new Map<number, Set<Hex>>(
    [...dirty].map((netuid) => [netuid, new Set(changes.hotkeysBySubnet.get(netuid) ?? [])]),
  );
  const ownerHotkeys = await ownerHotkeysOf(runtime, [...changes.epochs, ...added]);
  for (const netuid of [...changes.epochs, ...added]) {
    const owner = ownerHotkeys.get(netuid);
    const paid = [
      ...changes.registered(netuid),
      ...(parents.get(netuid) ?? []),
      ...(owner === undefined ? [] : [owner]),
    ];
    for (const hotkey of paid) {
      candidates.get(netuid)?.add(hotkey);
      if (changes.epochs.includes(netuid)) candidates.get(ROOT_NETUID)?.add(hotkey);
    }
  }

  const pairs = [...candidates].flatMap(([netuid, hotkeys]) => [...hotkeys].map((hotkey) => [hotkey, netuid] as const));
  const pools = await readPools(items, pairs);
  const moved = pairs.filter(([hotkey, netuid]) => {
    const before = parent.subnets.get(netuid)?.pools.get(hotkey);
    const after = pools.get(poolKey(hotkey, netuid))!;
    return before === undefined ? after.sharesBits !== 0n : before.sharesBits !== after.sharesBits;
  });
  const { pointed, rescanned } = await movedEntries(items, parent, moved, pools, changes.coldkeysByPool);
  const entriesOf = await readHotkeyEntries(items.alpha, [...rescanned]);

  const subnets = new Map<number, SubnetHolders>();
  for (const netuid of changes.netuids) {
    const known = parent.subnets.get(netuid);
    if (!dirty.has(netuid) && known !== undefined) {
      subnets.set(netuid, known);
      continue;
    }
    const entries = new Map(known?.entries ?? []);
    const netuidPools = new Map(known?.pools ?? []);
    for (const [key, entry] of pointed.get(netuid) ?? []) {
      if (entry === undefined) entries.delete(key);
      else entries.set(key, entry);
    }
    for (const hotkey of rescanned) {
      for (const [key, entry] of entries) if (entry.hotkey === hotkey) entries.delete(key);
      for (const entry of entriesOf.get(hotkey) ?? [])
        if (entry.netuid === netuid) entries.set(entryKey(entry.hotkey, entry.coldkey), entry);
    }
    for (const hotkey of candidates.get(netuid) ?? []) netuidPools.set(hotkey, pools.get(poolKey(hotkey, netuid))!);
    // A pool no entry refers to any more is not kept (its hotkey is read again if an event names it).
    const held = new Set([...entries.values()].map((entry) => entry.hotkey));
    for (const hotkey of [...netuidPools.keys()]) if (!held.has(hotkey)) netuidPools.delete(hotkey);
    const missing = [...held].filter((hotkey) => !netuidPools.has(hotkey));
    if (missing.length > 0) {
      const read = await readPools(
        items,
        missing.map((hotkey) => [hotkey, netuid] as const),
      );
      for (const hotkey of missing) netuidPools.set(hotkey, read.get(poolKey(hotkey, netuid))!);
    }
    subnets.set(netuid, { entries, pools: netuidPools });
  }
  return {
    specVersion: runtime.specVersion,
    subnets,
    parents,
    changed: new Set([...dirty].filter((netuid) => subnets.has(netuid))),
  };
}

/** A subnet's positions valued by its pools, largest first (ties by coldkey, then hotkey); positions worth nothing are left out. */
export function valuedPositions(subnet: SubnetHolders): HolderValue[] {
  const values: HolderValue[] = [];
  for (const entry of subnet.entries.values()) {
    const pool = subnet.pools.get(entry.hotkey);
    if (pool === undefined) continue;
    const alphaNalpha = shareValue(pool.alpha, pool.sharesBits, entry.shareBits, pool.arithmetic);
    if (alphaNalpha > 0n) values.push({ hotkey: entry.hotkey, coldkey: entry.coldkey, alphaNalpha });
  }
  return values.sort((a, b) =>
    a.alphaNalpha === b.alphaNalpha
      ? a.coldkey === b.coldkey
        ? a.hotkey < b.hotkey
          ? -1
          : 1
        : a.coldkey < b.coldkey
          ? -1
          : 1
      : a.alphaNalpha > b.alphaNalpha
        ? -1
        : 1,
  );
}

interface ShareItems {
  alpha: StorageItem;
  totalAlpha: StorageItem;
  totalShares: StorageItem;
  /** `Owner` (hotkey -> coldkey): where an epoch pays a hotkey's incentive and take as new shares. */
  owner: StorageItem | undefined;
}

function shareItems(runtime: RuntimeAt): ShareItems | undefined {
  const alpha = runtime.storage("subtensorModule", "alpha");
  const totalAlpha = runtime.storage("subtensorModule", "totalHotkeyAlpha");
  const totalShares = runtime.storage("subtensorModule", "totalHotkeyShares");
  const owner = runtime.storage("subtensorModule", "owner");
  return alpha === undefined || totalAlpha === undefined || totalShares === undefined
    ? undefined
    : { alpha, totalAlpha, totalShares, owner };
}

const poolKey = (hotkey: Hex, netuid: number) => `${hotkey}:${netuid}`;

/** Pools by `<hotkey>:<netuid>`, two batched reads. */
async function readPools(
  items: ShareItems,
  pairs: readonly (readonly [Hex, number])[],
): Promise<Map<string, HotkeyPool>> {
  const pools = new Map<string, HotkeyPool>();
  if (pairs.length === 0) return pools;
  const [alphas, shares] = await Promise.all([items.totalAlpha.multi(pairs), items.totalShares.multi(pairs)]);
  pairs.forEach(([hotkey, netuid], index) => {
    const alpha = alphas[index];
    const sharesBits = fixedBits(shares[index]);
    const arithmetic = shareArithmeticOf(shares[index]);
    if (
      (typeof alpha !== "bigint" && typeof alpha !== "number") ||
      sharesBits === undefined ||
      arithmetic === undefined
    ) {
      throw new DecodeError(
        `the share pool of ${hotkey} on subnet ${netuid} does not decode (TotalHotkeyAlpha ${String(alpha)})`,
      );
    }
    pools.set(poolKey(hotkey, netuid), { alpha: BigInt(alpha), sharesBits, arithmetic });
  });
  return pools;
}

/**
 * The entries of the pools whose shares moved, read where a block changes them: the hotkey's owner
 * (an epoch pays incentive and take into `(hotkey, Owner(hotkey))` as new shares) and the coldkeys
 * the block's stake events name, all in one batched read. Undefined marks an entry gone. A pool
 * whose entries do not then add up to its `TotalHotkeyShares` had another entry change (a swap, a
 * transfer this reader does not name): its hotkey is `rescanned`, its entries read whole.
 */
async function movedEntries(
  items: ShareItems,
  parent: HolderState,
  moved: readonly (readonly [Hex, number])[],
  pools: ReadonlyMap<string, HotkeyPool>,
  coldkeysByPool: ReadonlyMap<string, ReadonlySet<Hex>>,
): Promise<{ pointed: Map<number, Map<string, HolderEntry | undefined>>; rescanned: Set<Hex> }> {
  const pointed = new Map<number, Map<string, HolderEntry | undefined>>();
  const rescanned = new Set<Hex>();
  if (moved.length === 0) return { pointed, rescanned };
  if (items.owner === undefined) {
    for (const [hotkey] of moved) rescanned.add(hotkey);
    return { pointed, rescanned };
  }
  const hotkeys = [...new Set(moved.map(([hotkey]) => hotkey))];
  const ownerValues = await items.owner.multi(hotkeys);
  const ownerOf = new Map(hotkeys.map((hotkey, index) => [hotkey, publicKeyField(ownerValues[index])]));
  const triples: [Hex, Hex, number][] = [];
  for (const [hotkey, netuid] of moved) {
    const suspects = new Set(coldkeysByPool.get(poolKey(hotkey, netuid)) ?? []);
    const owner = ownerOf.get(hotkey);
    if (owner !== undefined) suspects.add(owner);
    for (const coldkey of suspects) triples.push([hotkey, coldkey, netuid]);
  }
  const values = await items.alpha.multi(triples);
  triples.forEach(([hotkey, coldkey, netuid], index) => {
    const shareBits = fixedBits(values[index]) ?? 0n;
    const updates = pointed.get(netuid) ?? new Map<string, HolderEntry | undefined>();
    updates.set(entryKey(hotkey, coldkey), shareBits === 0n ? undefined : { hotkey, coldkey, shareBits });
    pointed.set(netuid, updates);
  });
  // The check: the pool's entries, with the new ones, add up to its shares.
  for (const [netuid, updates] of pointed) {
    const sums = new Map<Hex, bigint>();
    const movedHere = new Set(moved.filter(([, at]) => at === netuid).map(([hotkey]) => hotkey));
    for (const [key, entry] of parent.subnets.get(netuid)?.entries ?? []) {
      if (movedHere.has(entry.hotkey) && !updates.has(key))
        sums.set(entry.hotkey, (sums.get(entry.hotkey) ?? 0n) + entry.shareBits);
    }
    for (const entry of updates.values())
      if (entry !== undefined) sums.set(entry.hotkey, (sums.get(entry.hotkey) ?? 0n) + entry.shareBits);
    for (const hotkey of movedHere) {
      if ((sums.get(hotkey) ?? 0n) !== pools.get(poolKey(hotkey, netuid))!.sharesBits) rescanned.add(hotkey);
    }
  }
  for (const [hotkey, netuid] of moved) if (!pointed.has(netuid)) rescanned.add(hotkey);
  return { pointed, rescanned };
}

/** Each hotkey's entries on every subnet: one `Alpha` prefix per hotkey, a few in flight. */
async function readHotkeyEntries(
  alpha: StorageItem,
  hotkeys: readonly Hex[],
): Promise<Map<Hex, (HolderEntry & { netuid: number })[]>> {
  const found = new Map<Hex, (HolderEntry & { netuid: number })[]>();
  let next = 0;
  const worker = async () => {
    while (next < hotkeys.length) {
      const hotkey = hotkeys[next++]!;
      const rows = await alpha.entries(hotkey);
      found.set(
        hotkey,
        rows.map(([key, value]) => alphaEntry(key, value)).filter((entry) => entry !== undefined),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, hotkeys.length) }, worker));
  return found;
}

/** Each subnet's owner hotkey (`SubnetOwnerHotkey`): the epoch stakes the owner cut through it. */
async function ownerHotkeysOf(runtime: RuntimeAt, netuids: readonly number[]): Promise<Map<number, Hex>> {
  const owners = new Map<number, Hex>();
  const ownerHotkey = runtime.storage("subtensorModule", "subnetOwnerHotkey");
  if (ownerHotkey === undefined || netuids.length === 0) return owners;
  const values = await ownerHotkey.multi(netuids);
  netuids.forEach((netuid, index) => {
    const owner = accountField(values[index]);
    if (owner !== undefined && !/^0x0+$/.test(owner.publicKey)) owners.set(netuid, owner.publicKey as Hex);
  });
  return owners;
}

/** Every parent hotkey per subnet, from the whole `ParentKeys` map ((child, netuid) -> [(proportion, parent)]). */
async function readParents(runtime: RuntimeAt): Promise<Map<number, Set<Hex>>> {
  const parents = new Map<number, Set<Hex>>();
  const parentKeys = runtime.storage("subtensorModule", "parentKeys");
  if (parentKeys === undefined) return parents;
  for (const [key, value] of await parentKeys.entries()) {
    const netuid = Array.isArray(key) ? Number(key[1]) : Number.NaN;
    if (!Number.isInteger(netuid) || !Array.isArray(value)) continue;
    for (const pair of value) {
      const parent = accountField(Array.isArray(pair) ? pair[1] : undefined);
      if (parent !== undefined) parents.set(netuid, (parents.get(netuid) ?? new Set()).add(parent.publicKey as Hex));
    }
  }
  return parents;
}

/** The parent sets with a block's new parents added (a parent that lost its children stays: one extra read at epochs, never a miss). */
function withNewParents(
  parents: ReadonlyMap<number, ReadonlySet<Hex>>,
  added: readonly (readonly [Hex, number])[],
): ReadonlyMap<number, ReadonlySet<Hex>> {
  if (added.length === 0) return parents;
  const next = new Map(parents);
  for (const [hotkey, netuid] of added) next.set(netuid, new Set([...(next.get(netuid) ?? []), hotkey]));
  return next;
}

/** An `Alpha` entry from its full key `(hotkey, coldkey, netuid)` and value; undefined for one that does not decode. */
function alphaEntry(key: unknown, value: unknown): (HolderEntry & { netuid: number }) | undefined {
  if (!Array.isArray(key) || key.length !== 3) return undefined;
  const hotkey = publicKeyField(key[0]);
  const coldkey = publicKeyField(key[1]);
  const netuid = Number(key[2]);
  const shareBits = fixedBits(value);
  if (hotkey === undefined || coldkey === undefined || !Number.isInteger(netuid) || shareBits === undefined)
    return undefined;
  return { hotkey, coldkey, netuid, shareBits };
}

/**
 * The HolderPositions records of the subnets whose positions the block changed (every subnet after
 * a full read), keyed `netuid:<n>` so they travel with the subnet's other records, in chunks of
 * `chunkSize` positions (one empty chunk when there are none). Each is a delta against the
 * parent's set of the subnet (libs/proto holderSets.ts), or the whole set (a keyframe) when the
 * parent's is not known (the first block after a start, a new subnet) or the subnet's keyframe is
 * due: every `keyframeEvery` blocks, at a block of its own (offset by netuid, so keyframes spread),
 * whether its positions changed or not. Coverage is complete: the set is the whole `Alpha` map's,
 * hotkeys registered on the subnet or not.
 *
 * Why deltas: a stake event moves one or two positions of a set that holds thousands. Whole sets
 * were ~47 % of chain.network.v1's bytes in the Finney soak (a ~215 KB set per subnet per stake).
 */
export function holderRecords(
  state: HolderState,
  context: {
    chainId: number;
    ref: ChainRef;
    chunkSize: number;
    /** The parent block's state, when known. */
    parent?: HolderState | undefined;
    keyframeEvery: number;
  },
): NetworkRecord[] {
  const block = BigInt(context.ref.blockNumber);
  const every = BigInt(Math.max(1, context.keyframeEvery));
  const keyframeDue = (netuid: number) => block % every === BigInt(netuid) % every;
  const netuids = [...state.subnets.keys()].filter((netuid) => state.changed.has(netuid) || keyframeDue(netuid));
  const records: NetworkRecord[] = [];
  for (const netuid of netuids.sort((a, b) => a - b)) {
    const subnet = state.subnets.get(netuid)!;
    const set = publishedSet(subnet);
    const before = context.parent?.subnets.get(netuid);
    const base = before === undefined || keyframeDue(netuid) ? undefined : publishedSet(before);
    const positions = base === undefined ? set.positions : holderSetDelta(base.positions, set.positions);
    const size = Math.max(1, context.chunkSize);
    const chunkCount = Math.max(1, Math.ceil(positions.length / size));
    const key = netuidKey(netuid);
    for (let chunkIndex = 0; chunkIndex < chunkCount; chunkIndex++) {
      const payload = {
        event: {
          $case: "holderPositions" as const,
          value: {
            ref: context.ref,
            netuid,
            coverage: HolderCoverage.HOLDER_COVERAGE_COMPLETE,
            chunkIndex,
            chunkCount,
            positions: positions.slice(chunkIndex * size, (chunkIndex + 1) * size),
            ...(base === undefined ? {} : { baseDigest: base.digest }),
            digest: set.digest,
          },
        },
      };
      const eventType = eventTypeOf(payload);
      records.push({
        topic: "chain.network.v1",
        key,
        eventId: networkEventId(context.chainId, context.ref.blockHash, eventType, key, chunkIndex),
        eventType,
        ref: context.ref,
        payload,
      });
    }
  }
  return records;
}

const publishedSets = new WeakMap<SubnetHolders, { positions: HolderPosition[]; digest: Buffer }>();

/** A subnet's set as published, with its digest: made once per SubnetHolders, which the next block's delta reads again as its base. */
function publishedSet(subnet: SubnetHolders): { positions: HolderPosition[]; digest: Buffer } {
  let set = publishedSets.get(subnet);
  if (set === undefined) {
    const positions = valuedPositions(subnet).map((value) => ({
      coldkey: accountFromPublicKey(value.coldkey),
      hotkey: accountFromPublicKey(value.hotkey),
      alphaNalpha: value.alphaNalpha.toString(),
    }));
    set = { positions, digest: holderSetDigest(positions) };
    publishedSets.set(subnet, set);
  }
  return set;
}

const byColdkey = new WeakMap<SubnetHolders, Map<Hex, HolderEntry[]>>();

/** A subnet's entries by coldkey (built once per SubnetHolders, which blocks share while it does not change). */
function entriesByColdkey(subnet: SubnetHolders): Map<Hex, HolderEntry[]> {
  let index = byColdkey.get(subnet);
  if (index === undefined) {
    index = new Map();
    for (const entry of subnet.entries.values()) {
      const list = index.get(entry.coldkey);
      if (list === undefined) index.set(entry.coldkey, [entry]);
      else list.push(entry);
    }
    byColdkey.set(subnet, index);
  }
  return index;
}

/**
 * The coldkeys' alpha positions after the block, from the holder state: every `Alpha` entry of the
 * coldkey worth something, valued as the runtime values it (what StakeInfoRuntimeApi answers, without
 * a runtime call or a storage read), ordered by netuid then hotkey. Per subnet, few coldkeys against
 * its entries (a block's own activity: a few accounts) are looked up in its coldkey index, kept
 * while the subnet's positions do not change, so most subnets' stand from block to block; more (an
 * epoch's payees, 1,000 to 30,000+ coldkeys at mainnet size) take one pass over its entries. (A pass over
 * every subnet for every block's few accounts, or a lookup per coldkey and subnet, were the largest
 * costs of a catch-up and of an epoch block in bench/native/scale's profiles.)
 */
export function positionsOf(state: HolderState, coldkeys: readonly Hex[]): Map<string, ColdkeyPosition[]> {
  const positions = new Map<string, ColdkeyPosition[]>(coldkeys.map((coldkey) => [coldkey, []]));
  const netuids = [...state.subnets.keys()].sort((a, b) => a - b);
  for (const netuid of netuids) {
    const subnet = state.subnets.get(netuid)!;
    const add = (list: ColdkeyPosition[], entry: HolderEntry) => {
      const pool = subnet.pools.get(entry.hotkey);
      const stakeNalpha =
        pool === undefined ? 0n : shareValue(pool.alpha, pool.sharesBits, entry.shareBits, pool.arithmetic);
      if (stakeNalpha > 0n) list.push({ netuid, hotkey: entry.hotkey, stakeNalpha });
    };
    // The index pays off on subnets that stand from block to block; an epoch's payees (a thousand
    // coldkeys and more) take the pass, so the subnets an epoch changes get no index built per block.
    if (positions.size * 8 < subnet.entries.size || byColdkey.has(subnet)) {
      const index = entriesByColdkey(subnet);
      for (const [coldkey, list] of positions) for (const entry of index.get(coldkey as Hex) ?? []) add(list, entry);
      continue;
    }
    for (const entry of subnet.entries.values()) {
      const list = positions.get(entry.coldkey);
      if (list !== undefined) add(list, entry);
    }
  }
  for (const list of positions.values())
    list.sort((a, b) => a.netuid - b.netuid || (a.hotkey < b.hotkey ? -1 : a.hotkey > b.hotkey ? 1 : 0));
  return positions;
}

/**
 * The coldkeys whose positions the block changed in value (a pool paid at an epoch, shares bought or
 * sold, a subnet added or removed), from the parent's state and the block's: only the subnets the
 * block changed are compared, and in them only the entries of pools that moved.
 */
export function changedColdkeys(parent: HolderState | undefined, state: HolderState): Hex[] {
  if (parent === undefined) return [];
  const changed = new Set<Hex>();
  const netuids = new Set([...parent.subnets.keys(), ...state.subnets.keys()]);
  for (const netuid of netuids) {
    const [before, after] = [parent.subnets.get(netuid), state.subnets.get(netuid)];
    if (before === after) continue;
    const value = (subnet: SubnetHolders | undefined, entry: HolderEntry) => {
      const pool = subnet?.pools.get(entry.hotkey);
      return pool === undefined ? 0n : shareValue(pool.alpha, pool.sharesBits, entry.shareBits, pool.arithmetic);
    };
    const samePool = (hotkey: Hex) => {
      const [left, right] = [before?.pools.get(hotkey), after?.pools.get(hotkey)];
      return (
        left !== undefined && right !== undefined && left.alpha === right.alpha && left.sharesBits === right.sharesBits
      );
    };
    for (const [key, entry] of after?.entries ?? []) {
      const previous = before?.entries.get(key);
      if (previous !== undefined && previous.shareBits === entry.shareBits && samePool(entry.hotkey)) continue;
      if (previous === undefined ? value(after, entry) > 0n : value(before, previous) !== value(after, entry))
        changed.add(entry.coldkey);
    }
    for (const [key, entry] of before?.entries ?? []) {
      if (!after?.entries.has(key) && value(before, entry) > 0n) changed.add(entry.coldkey);
    }
  }
  return [...changed].sort();
}

/**
 * The coldkeys holding a position on any of the subnets: at the first block read (no parent state to
 * compare with) the coldkeys an epoch may have moved are all those of the subnets that had one.
 */
export function coldkeysOn(state: HolderState, netuids: readonly number[]): Hex[] {
  const coldkeys = new Set<Hex>();
  for (const netuid of netuids) {
    const subnet = state.subnets.get(netuid);
    if (subnet !== undefined) for (const coldkey of entriesByColdkey(subnet).keys()) coldkeys.add(coldkey);
  }
  return [...coldkeys].sort();
}
