import type { AccountId, NeuronAxonInfo, ValidatorIdentity } from "@platform/proto/common/v1/network";
import type { NeuronState } from "@platform/proto/events/v1/chain_network";
import { ROOT_NETUID } from "@platform/subtensor";
import { accountField, amountField } from "../node/eventFields.js";
import type { RuntimeAt } from "../node/runtimeAt.js";
import {
  flag,
  optional,
  readColumns,
  readFirstColumn,
  smallInt,
  storedAccount,
  subtensorItem,
  textFieldsOf,
  u16Ratio,
  u64Text,
} from "../node/storageColumns.js";

/*
 * Batching: one `Keys` prefix read per subnet (the only way to list its hotkeys), then one
 * `.multi` per storage item over every subnet, uid, hotkey or coldkey at once, so the number of
 * reads does not grow with the neurons (mainnet: 128 subnets x 256 uids).
 *
 * Defaults: dedot answers a `ValueQuery` map's default for a key never written, and the runtime
 * reads that same default, so it is reported as the value. In particular `Delegates` (u16 take) is
 * a ValueQuery whose default (`InitialDefaultDelegateTake`, 18%) spec 218's coinbase applies to the
 * dividends of every hotkey, delegate or not (`get_hotkey_take` is `Delegates::get`): `take` is the
 * take in force. Telling a stored take from the default would need the raw key's existence, which
 * RuntimeAt does not expose, or a scan of every delegate. Likewise `ChildkeyTake` (default 0).
 * `Owner` defaults to the all-zero account, which means "no owner": the coldkey is then left out.
 * `Identities` is an OptionQuery: absent when the coldkey set none.
 */

/** Per-subnet vectors, indexed by uid. */
const VECTOR_ITEMS = [
  "active",
  "validatorPermit",
  "dividends",
  "incentive",
  "consensus",
  "validatorTrust",
  "emission",
  "lastUpdate",
  // Spec 218 keeps these; a runtime without them leaves the neurons' rank, trust and pruning score out.
  "rank",
  "trust",
  "pruningScores",
] as const;
type VectorItem = (typeof VECTOR_ITEMS)[number];

/** Coldkey identities, newest name first (V2 added `github_repo`). */
const IDENTITY_ITEMS = ["identitiesV2", "identities"] as const;

/** A registered uid of a subnet. */
interface Slot {
  netuid: number;
  /** Position of the subnet in the caller's netuids (its vectors' column index). */
  subnetIndex: number;
  uid: number;
  hotkey: AccountId;
}

/** One neuron's values, read in batches. */
interface NeuronValues {
  vector(item: VectorItem): unknown;
  registeredAt: unknown;
  alphaStake: unknown;
  childkeyTake: unknown;
  coldkey: unknown;
  rootStake: unknown;
  take: unknown;
  identity: unknown;
  axon: unknown;
  hotkeyDividends: unknown;
}

/**
 * Every subnet's metagraph at the runtime's block (the `neurons` of ValidatorSetSnapshot) by
 * netuid, ordered by uid. Scores are u16 ratios; a uid beyond the end of a vector (the runtime
 * grows the vectors at registration, so a short one is a runtime's oddity) gets the proto default.
 */
export async function readMetagraphs(
  runtime: RuntimeAt,
  netuids: readonly number[],
): Promise<Map<number, NeuronState[]>> {
  const [slotsBySubnet, vectors] = await Promise.all([
    registeredSlots(runtime, netuids),
    readColumns(runtime, VECTOR_ITEMS, netuids),
  ]);
  const slots = slotsBySubnet.flat();
  const hotkeys = [...new Set(slots.map((slot) => slot.hotkey.publicKey))];

  const [perSlot, stakes, axons, perHotkey, rootStakes] = await Promise.all([
    readColumns(
      runtime,
      ["blockAtRegistration"],
      slots.map((slot) => [slot.netuid, slot.uid]),
    ),
    readColumns(
      runtime,
      ["totalHotkeyAlpha", "childkeyTake"],
      slots.map((slot) => [slot.hotkey.publicKey, slot.netuid]),
    ),
    readColumns(
      runtime,
      ["axons", "hotkeyDividendsPerSubnet"],
      slots.map((slot) => [slot.netuid, slot.hotkey.publicKey]),
    ),
    readColumns(runtime, ["owner", "delegates"], hotkeys),
    readColumns(
      runtime,
      ["totalHotkeyAlpha"],
      hotkeys.map((hotkey) => [hotkey, ROOT_NETUID]),
    ),
  ]);
  const hotkeyIndex = new Map(hotkeys.map((hotkey, index) => [hotkey, index]));
  const coldkeyOf = (hotkey: string) => storedAccount(perHotkey.owner?.[hotkeyIndex.get(hotkey)!]);
  const coldkeys = [...new Set(hotkeys.flatMap((hotkey) => coldkeyOf(hotkey)?.publicKey ?? []))];
  const identities = await readFirstColumn(runtime, IDENTITY_ITEMS, coldkeys);
  const identityOf = new Map(coldkeys.map((coldkey, index) => [coldkey, identities?.[index]]));

  const metagraphs = new Map<number, NeuronState[]>(netuids.map((netuid) => [netuid, []]));
  slots.forEach((slot, index) => {
    const at = hotkeyIndex.get(slot.hotkey.publicKey)!;
    const coldkey = coldkeyOf(slot.hotkey.publicKey);
    const values: NeuronValues = {
      vector: (item) => elementAt(vectors[item]?.[slot.subnetIndex], slot.uid),
      registeredAt: perSlot.blockAtRegistration?.[index],
      alphaStake: stakes.totalHotkeyAlpha?.[index],
      childkeyTake: stakes.childkeyTake?.[index],
      coldkey: perHotkey.owner?.[at],
      rootStake: rootStakes.totalHotkeyAlpha?.[at],
      take: perHotkey.delegates?.[at],
      identity: coldkey === undefined ? undefined : identityOf.get(coldkey.publicKey),
      axon: axons.axons?.[index],
      hotkeyDividends: axons.hotkeyDividendsPerSubnet?.[index],
    };
    metagraphs.get(slot.netuid)!.push(neuronState(slot, values));
  });
  return metagraphs;
}

function neuronState(slot: Slot, values: NeuronValues): NeuronState {
  const { vector } = values;
  return {
    uid: slot.uid,
    hotkey: slot.hotkey,
    ...optional("coldkey", storedAccount(values.coldkey)),
    // Required proto fields: a value the runtime lacks (or a short vector) leaves the proto default.
    validatorPermit: flag(vector("validatorPermit")) ?? false,
    active: flag(vector("active")) ?? false,
    ...optional("registeredAtBlock", u64Text(values.registeredAt)),
    ...optional("take", u16Ratio(values.take)),
    ...optional("childkeyTake", u16Ratio(values.childkeyTake)),
    alphaStakeNalpha: u64Text(values.alphaStake) ?? "",
    ...optional("rootStakeRao", u64Text(values.rootStake)),
    dividends: u16Ratio(vector("dividends")) ?? "",
    vtrust: u16Ratio(vector("validatorTrust")) ?? "",
    incentive: u16Ratio(vector("incentive")) ?? "",
    consensus: u16Ratio(vector("consensus")) ?? "",
    emissionNalpha: u64Text(vector("emission")) ?? "",
    lastUpdateBlock: u64Text(vector("lastUpdate")) ?? "0",
    ...optional("identity", validatorIdentity(values.identity)),
    ...scoresOf(vector),
    ...optional("axon", axonInfo(values.axon)),
    ...optional("hotkeyDividendsNalpha", u64Text(values.hotkeyDividends)),
  };
}

/** The scores only some runtimes keep (absent where the vector is missing or short). */
function scoresOf(
  vector: (item: VectorItem) => unknown,
): Partial<Pick<NeuronState, "rank" | "trust" | "pruningScore">> {
  return {
    ...optional("rank", u16Ratio(vector("rank"))),
    ...optional("trust", u16Ratio(vector("trust"))),
    ...optional("pruningScore", u16Ratio(vector("pruningScores"))),
  };
}

/** `AxonInfo` (an OptionQuery: undefined when the hotkey never served one on the subnet). */
export function axonInfo(value: unknown): NeuronAxonInfo | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  const ip = amountField(fields.ip);
  const ipType = smallInt(fields.ipType);
  if (ip === undefined || ipType === undefined) return undefined;
  return {
    ip: ipText(ip, ipType),
    port: smallInt(fields.port) ?? 0,
    ipType,
    protocol: smallInt(fields.protocol) ?? 0,
    version: smallInt(fields.version) ?? 0,
    block: u64Text(fields.block) ?? "0",
  };
}

/**
 * The u128 `ip` as text: dotted IPv4 for ip_type 4 (its low 32 bits, as the runtime packs it),
 * otherwise IPv6 in RFC 5952's compressed form (the WHATWG URL serialiser writes that form).
 */
export function ipText(ip: bigint, ipType: number): string {
  if (ipType === 4) return [24n, 16n, 8n, 0n].map((shift) => String((ip >> shift) & 0xffn)).join(".");
  const hextets = Array.from({ length: 8 }, (_, index) => ((ip >> BigInt(112 - 16 * index)) & 0xffffn).toString(16));
  return new URL(`http://[${hextets.join(":")}]/`).hostname.slice(1, -1);
}

/**
 * Past this many subnets, `Keys` is read as one map (a few pages) instead of one prefix per subnet:
 * a mainnet-sized read of all 129 subnets is 129 prefix walks otherwise.
 */
const WHOLE_KEYS_MAP_FROM = 16;

/** Each subnet's registered uids and hotkeys, by uid, in the order of `netuids`. */
async function registeredSlots(runtime: RuntimeAt, netuids: readonly number[]): Promise<Slot[][]> {
  if (netuids.length < WHOLE_KEYS_MAP_FROM)
    return Promise.all(netuids.map((netuid, index) => subnetSlots(runtime, netuid, index)));
  const keys = subtensorItem(runtime, "keys");
  if (keys === undefined) return netuids.map(() => []);
  const entries = await keys.entries().catch((error: unknown) => {
    throw new Error("reading SubtensorModule.keys failed", { cause: error });
  });
  const subnetIndex = new Map(netuids.map((netuid, index) => [netuid, index]));
  const slots: Slot[][] = netuids.map(() => []);
  for (const [key, value] of entries) {
    const netuid = Array.isArray(key) ? smallInt(key[0]) : undefined;
    const index = netuid === undefined ? undefined : subnetIndex.get(netuid);
    if (index !== undefined) slots[index]!.push(slotOf(netuid!, index, key, value));
  }
  return slots.map((list) => list.sort((a, b) => a.uid - b.uid));
}

/** The subnet's registered uids and hotkeys (`Keys` under the netuid), by uid. */
async function subnetSlots(runtime: RuntimeAt, netuid: number, subnetIndex: number): Promise<Slot[]> {
  const keys = subtensorItem(runtime, "keys");
  if (keys === undefined) return [];
  const entries = await keys.entries(netuid).catch((error: unknown) => {
    throw new Error(`reading SubtensorModule.keys of subnet ${netuid} failed`, { cause: error });
  });
  return entries.map(([key, value]) => slotOf(netuid, subnetIndex, key, value)).sort((a, b) => a.uid - b.uid);
}

/** A `Keys` entry: key `[netuid, uid]`, value the hotkey. Another shape is a runtime this reader does not know. */
function slotOf(netuid: number, subnetIndex: number, key: unknown, value: unknown): Slot {
  const uid = Array.isArray(key) && key.length === 2 ? smallInt(key[1]) : undefined;
  const hotkey = accountField(value);
  if (uid === undefined || hotkey === undefined)
    throw new TypeError(`SubtensorModule.keys of subnet ${netuid}: unexpected entry shape`);
  return { netuid, subnetIndex, uid, hotkey };
}

const elementAt = (vector: unknown, uid: number): unknown => (Array.isArray(vector) ? vector[uid] : undefined);

/** Either identity version as the proto's; `github_repo` is "" for spec 218's (it has none). */
function validatorIdentity(value: unknown): ValidatorIdentity | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const text = textFieldsOf(value);
  return {
    name: text("name"),
    url: text("url"),
    githubRepo: text("githubRepo"),
    image: text("image"),
    discord: text("discord"),
    description: text("description"),
    additional: text("additional"),
  };
}

/** What changes at epochs, weights and stake moves: each subnet's vectors and its neurons' stakes. */
const DYNAMIC_VECTORS = VECTOR_ITEMS;

/**
 * The metagraphs of `netuids` with only what epochs, weights and stake moves change read again
 * (the score vectors, per subnet, and each neuron's alpha and root stake), the rest of each neuron
 * (hotkey, coldkey, take, childkey take, identity, registration block, axon) kept from `previous`: those
 * change only through events (registrations, take and identity changes, axons served), which re-read the subnet
 * whole. At mainnet size this is 2 storage values per neuron instead of 7.
 */
export async function refreshMetagraphs(
  runtime: RuntimeAt,
  previous: ReadonlyMap<number, readonly NeuronState[]>,
  netuids: readonly number[],
): Promise<Map<number, NeuronState[]>> {
  const slots = netuids.flatMap((netuid) => (previous.get(netuid) ?? []).map((neuron) => ({ netuid, neuron })));
  const hotkeys = [
    ...new Set(slots.flatMap(({ neuron }) => (neuron.hotkey === undefined ? [] : [neuron.hotkey.publicKey]))),
  ];
  const [vectors, stakes, dividends, rootStakes] = await Promise.all([
    readColumns(runtime, DYNAMIC_VECTORS, netuids),
    readColumns(
      runtime,
      ["totalHotkeyAlpha"],
      slots.map(({ netuid, neuron }) => [neuron.hotkey?.publicKey, netuid]),
    ),
    // An epoch pays dividends: the hotkey's share of them moves with the scores.
    readColumns(
      runtime,
      ["hotkeyDividendsPerSubnet"],
      slots.map(({ netuid, neuron }) => [netuid, neuron.hotkey?.publicKey]),
    ),
    readColumns(
      runtime,
      ["totalHotkeyAlpha"],
      hotkeys.map((hotkey) => [hotkey, ROOT_NETUID]),
    ),
  ]);
  const hotkeyIndex = new Map(hotkeys.map((hotkey, index) => [hotkey, index]));
  const subnetIndex = new Map(netuids.map((netuid, index) => [netuid, index]));
  const refreshed = new Map<number, NeuronState[]>(netuids.map((netuid) => [netuid, []]));
  slots.forEach(({ netuid, neuron }, index) => {
    const vector = (item: VectorItem) => elementAt(vectors[item]?.[subnetIndex.get(netuid)!], neuron.uid);
    const rootStake =
      neuron.hotkey === undefined
        ? undefined
        : rootStakes.totalHotkeyAlpha?.[hotkeyIndex.get(neuron.hotkey.publicKey)!];
    const {
      rootStakeRao: _rootStake,
      rank: _rank,
      trust: _trust,
      pruningScore: _pruning,
      hotkeyDividendsNalpha: _dividends,
      ...kept
    } = neuron;
    const next: NeuronState = {
      ...kept,
      validatorPermit: flag(vector("validatorPermit")) ?? false,
      active: flag(vector("active")) ?? false,
      alphaStakeNalpha: u64Text(stakes.totalHotkeyAlpha?.[index]) ?? "",
      ...optional("rootStakeRao", u64Text(rootStake)),
      dividends: u16Ratio(vector("dividends")) ?? "",
      vtrust: u16Ratio(vector("validatorTrust")) ?? "",
      incentive: u16Ratio(vector("incentive")) ?? "",
      consensus: u16Ratio(vector("consensus")) ?? "",
      emissionNalpha: u64Text(vector("emission")) ?? "",
      lastUpdateBlock: u64Text(vector("lastUpdate")) ?? "0",
      ...scoresOf(vector),
      ...optional("hotkeyDividendsNalpha", u64Text(dividends.hotkeyDividendsPerSubnet?.[index])),
    };
    refreshed.get(netuid)!.push(sameRefreshed(neuron, next) ? neuron : next);
  });
  // A metagraph none of whose neurons moved is the previous one: not changed, not published again.
  for (const [netuid, neurons] of refreshed) {
    const before = previous.get(netuid);
    if (
      before !== undefined &&
      before.length === neurons.length &&
      neurons.every((neuron, index) => neuron === before[index])
    )
      refreshed.set(netuid, before as NeuronState[]);
  }
  return refreshed;
}

/**
 * The metagraphs of `netuids` with the root stake of `hotkeys` read again (one value a hotkey),
 * everything else kept from `previous`: what an epoch's root dividends change on the other subnets
 * its validators sit on. A neuron (and a metagraph) whose root stake did not move is the previous one.
 */
export async function refreshRootStakes(
  runtime: RuntimeAt,
  previous: ReadonlyMap<number, readonly NeuronState[]>,
  netuids: readonly number[],
  hotkeys: ReadonlySet<string>,
): Promise<Map<number, NeuronState[]>> {
  const refreshed = new Map<number, NeuronState[]>();
  if (netuids.length === 0 || hotkeys.size === 0) return refreshed;
  const held = [
    ...new Set(
      netuids.flatMap((netuid) =>
        (previous.get(netuid) ?? []).flatMap((neuron) =>
          neuron.hotkey !== undefined && hotkeys.has(neuron.hotkey.publicKey) ? [neuron.hotkey.publicKey] : [],
        ),
      ),
    ),
  ];
  const rootStakes = await readColumns(
    runtime,
    ["totalHotkeyAlpha"],
    held.map((hotkey) => [hotkey, ROOT_NETUID]),
  );
  const rootStakeOf = new Map(held.map((hotkey, index) => [hotkey, u64Text(rootStakes.totalHotkeyAlpha?.[index])]));
  for (const netuid of netuids) {
    const before = previous.get(netuid) ?? [];
    let moved = false;
    const neurons = before.map((neuron) => {
      const hotkey = neuron.hotkey?.publicKey;
      if (hotkey === undefined || !rootStakeOf.has(hotkey)) return neuron;
      const rootStake = rootStakeOf.get(hotkey);
      if (rootStake === neuron.rootStakeRao) return neuron;
      moved = true;
      const { rootStakeRao: _rootStake, ...kept } = neuron;
      return { ...kept, ...optional("rootStakeRao", rootStake) };
    });
    refreshed.set(netuid, moved ? neurons : (before as NeuronState[]));
  }
  return refreshed;
}

/**
 * Whether a refreshed neuron equals the previous one in what a refresh reads: then the previous
 * object stands. (An epoch on a mainnet-sized state names ~every metagraph, its validators sitting
 * on many subnets; a new object per neuron of each was 33,000 neurons a block, 64 blocks kept.)
 */
function sameRefreshed(before: NeuronState, after: NeuronState): boolean {
  return (
    before.validatorPermit === after.validatorPermit &&
    before.active === after.active &&
    before.alphaStakeNalpha === after.alphaStakeNalpha &&
    before.rootStakeRao === after.rootStakeRao &&
    before.dividends === after.dividends &&
    before.vtrust === after.vtrust &&
    before.incentive === after.incentive &&
    before.consensus === after.consensus &&
    before.emissionNalpha === after.emissionNalpha &&
    before.lastUpdateBlock === after.lastUpdateBlock &&
    before.rank === after.rank &&
    before.trust === after.trust &&
    before.pruningScore === after.pruningScore &&
    before.hotkeyDividendsNalpha === after.hotkeyDividendsNalpha
  );
}
