import { alphaAbi, metagraphAbi, precompileAddresses, stakingV2Abi, subnetAbi } from "@platform/subtensor";
import { multicall3Abi, toHex, type Address, type Client, type Hex } from "viem";
import { multicallAt, MulticallUnavailableError, viewCall, type BatchCall, type CallResult } from "./multicallAt.js";
import {
  identityCall,
  networkStorageCalls,
  subnetStorageCalls,
  takeCall,
  toNetworkStorage,
  toNeuronMetadata,
  toSubnetMetadata,
  type NetworkStorage,
  type NeuronMetadata,
  type StorageDecodeErrorHandler,
  type SubnetMetadata,
} from "./storageReads.js";

/*
 * The network's state at one block, read through the precompiles with Multicall3 in a few rounds
 * (each round needs the answers of the one before: subnets, then their UIDs, then the stakers of each
 * hotkey, then each position). Storage-only items (names, symbols, tempos, owners, identities, takes,
 * issuance) come through StorageQuery in the same rounds. Raw chain values only; mapping to events
 * and units is elsewhere.
 */

export interface PoolState {
  mechanism: number;
  taoIn: bigint;
  alphaIn: bigint;
  alphaOut: bigint;
  alphaIssuance: bigint;
  price: bigint;
  movingPrice: bigint;
  volume: bigint;
  emaPriceHalvingBlocks?: bigint;
}

export interface EmissionState {
  taoInEmission: bigint;
  alphaInEmission: bigint;
  alphaOutEmission: bigint;
}

export interface NeuronRead {
  uid: number;
  hotkey: Hex;
  coldkey: Hex;
  validatorPermit: boolean;
  active: boolean;
  dividends: number;
  vtrust: number;
  incentive: number;
  consensus: number;
  emission: bigint;
  lastUpdate: bigint;
  alphaStake: bigint;
  rootStake?: bigint;
  /** `Delegates[hotkey]` (raw u16 take) and `IdentitiesV2[coldkey]`, when stored. */
  metadata?: NeuronMetadata;
}

export interface SubnetSettings {
  registeredAtBlock: bigint;
  networkRegistrationAllowed?: boolean;
  powRegistrationAllowed?: boolean;
  minBurn?: bigint;
  maxBurn?: bigint;
  difficulty?: bigint;
  commitRevealEnabled?: boolean;
  commitRevealInterval?: bigint;
  liquidAlphaEnabled?: boolean;
  alphaValues?: readonly [number, number];
  yuma3Enabled?: boolean;
  immunityPeriod?: number;
  kappa?: number;
  rho?: number;
  minAllowedWeights?: number;
  maxWeightLimit?: number;
  weightsSetRateLimit?: bigint;
  weightsVersionKey?: bigint;
  adjustmentAlpha?: bigint;
  activityCutoff?: number;
  alphaSigmoidSteepness?: number;
  bondsMovingAverage?: bigint;
  servingRateLimit?: bigint;
  minDifficulty?: bigint;
  maxDifficulty?: bigint;
}

export interface SubnetState {
  netuid: number;
  pool: PoolState;
  emission: EmissionState;
  settings: SubnetSettings;
  neurons: NeuronRead[];
  /** Tempo, symbol, identity and owner keys from storage. */
  metadata?: SubnetMetadata;
}

export interface StakeEntry {
  netuid: number;
  hotkey: Hex;
  coldkey: Hex;
  alpha: bigint;
}

export interface NetworkState {
  rootNetuid: number;
  taoWeight: bigint;
  subnets: SubnetState[];
  /** Every non-zero position on a hotkey registered on its subnet (what EVM reads can enumerate). */
  stakes: StakeEntry[];
  /** `TotalIssuance`, `BlockEmission`, `SubnetLimit` from storage. */
  storage?: NetworkStorage;
}

/**
 * Every method answers undefined for a block where the state cannot be read at all: one before
 * Multicall3 was deployed, or before the precompiles answered (a devnet's first blocks).
 */
export interface NetworkStateReader {
  /** Everything at the block: subnets, pools, emissions, metagraphs and positions. */
  read(blockHash: Hex): Promise<NetworkState | undefined>;
  /** `getStake(hotkey, coldkey, netuid)` for given triples, at the block. */
  stakesOf(blockHash: Hex, triples: readonly { hotkey: Hex; coldkey: Hex; netuid: number }[]): Promise<bigint[] | undefined>;
  /** Native balances (wei) of EVM addresses at the block. */
  balancesOf(blockHash: Hex, addresses: readonly Address[]): Promise<bigint[] | undefined>;
}

export interface NetworkStateReaderOptions {
  client: Client;
  multicall3: Address;
  /** Netuids probed for existence: 0 up to this bound (exclusive). Subtensor's `SubnetLimit` is 128. */
  maxNetuids: number;
  /** A stored value that does not decode; the field is left out of the snapshot (the step goes on). */
  onStorageDecodeError?: StorageDecodeErrorHandler;
}

const alpha = precompileAddresses.alpha;
const metagraph = precompileAddresses.metagraph;
const subnet = precompileAddresses.subnet;
const staking = precompileAddresses.stakingV2;

export function networkStateReader(options: NetworkStateReaderOptions): NetworkStateReader {
  const { client, multicall3 } = options;
  const onDecodeError = options.onStorageDecodeError ?? (() => undefined);
  const call = (blockHash: Hex, calls: readonly BatchCall[]) => multicallAt(client, multicall3, blockHash, calls);

  const unlessUnavailable = async <T>(read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await read();
    } catch (error) {
      if (error instanceof MulticallUnavailableError) return undefined;
      throw error;
    }
  };

  const readState = async (blockHash: Hex): Promise<NetworkState | undefined> => {
    // Round 1: which netuids exist, and the globals.
    const netuids = Array.from({ length: options.maxNetuids }, (_, index) => index);
    const probe = await call(blockHash, [
      viewCall(alpha, alphaAbi, "getRootNetuid", []),
      viewCall(alpha, alphaAbi, "getTaoWeight", []),
      ...netuids.flatMap((netuid) => [
        viewCall(metagraph, metagraphAbi, "getUidCount", [netuid]),
        viewCall(subnet, subnetAbi, "getNetworkRegistrationBlock", [netuid]),
        viewCall(alpha, alphaAbi, "getTaoInPool", [netuid]),
      ]),
    ]);
    // The Alpha precompile does not answer: no Subtensor state at this block.
    if (!probe[0]!.ok || !probe[1]!.ok) return undefined;
    const rootNetuid = Number(must(probe[0]!, "getRootNetuid"));
    const taoWeight = must(probe[1]!, "getTaoWeight") as bigint;
    const existing: { netuid: number; uids: number; registeredAt: bigint }[] = [];
    netuids.forEach((netuid, index) => {
      const [uids, registered, taoIn] = probe.slice(2 + index * 3, 5 + index * 3);
      if (!uids!.ok || !registered!.ok || !taoIn!.ok) return;
      const count = Number(uids!.value);
      const registeredAt = registered!.value as bigint;
      // A netuid the chain never registered answers zeros everywhere (the chain's storage defaults).
      if (netuid === rootNetuid || count > 0 || registeredAt > 0n || (taoIn!.value as bigint) > 0n) {
        existing.push({ netuid, uids: count, registeredAt });
      }
    });

    // Round 2: pools, emissions, settings, every UID's fields, and the storage-only items.
    const perSubnet = existing.map(({ netuid, uids }) => {
      const pool = POOL_FUNCTIONS.map((name) => viewCall(alpha, alphaAbi, name, [netuid]));
      const settings = SETTINGS_FUNCTIONS.map((name) => viewCall(subnet, subnetAbi, name, [netuid]));
      const neurons = Array.from({ length: uids }, (_, uid) => NEURON_FUNCTIONS.map((name) => viewCall(metagraph, metagraphAbi, name, [netuid, uid])));
      const storage = subnetStorageCalls(netuid);
      return { pool, settings, neurons, storage };
    });
    const globalStorage = networkStorageCalls();
    const round2 = await call(blockHash, [
      ...globalStorage,
      ...perSubnet.flatMap((entry) => [...entry.pool, ...entry.settings, ...entry.neurons.flat(), ...entry.storage]),
    ]);
    let cursor = 0;
    const take = (count: number) => {
      const slice = round2.slice(cursor, cursor + count);
      cursor += count;
      return slice;
    };
    const storage = toNetworkStorage(take(globalStorage.length), onDecodeError);
    const subnets = existing.map(({ netuid, uids, registeredAt }, index) => {
      const entry = perSubnet[index]!;
      const pool = take(entry.pool.length);
      const settings = take(entry.settings.length);
      const neurons = Array.from({ length: uids }, () => take(NEURON_FUNCTIONS.length));
      const metadata = toSubnetMetadata(netuid, take(entry.storage.length), onDecodeError);
      return { netuid, registeredAt, pool, settings, neurons, metadata };
    });

    // Round 3: each hotkey's alpha on its subnet and on root, and who stakes to it; each distinct
    // hotkey's take and coldkey's identity (a validator on several subnets is read once).
    const hotkeysOf = subnets.map((entry) => entry.neurons.map((fields) => must(fields[0]!, "getHotkey") as Hex));
    const coldkeysOf = subnets.map((entry) => entry.neurons.map((fields) => must(fields[1]!, "getColdkey") as Hex));
    const round3Calls = subnets.flatMap((entry, index) =>
      hotkeysOf[index]!.flatMap((hotkey) => [
        viewCall(staking, stakingV2Abi, "getTotalAlphaStaked", [hotkey, BigInt(entry.netuid)]),
        viewCall(staking, stakingV2Abi, "getTotalAlphaStaked", [hotkey, BigInt(rootNetuid)]),
        viewCall(staking, stakingV2Abi, "getAlphaStakedValidators", [hotkey, BigInt(entry.netuid)]),
      ]),
    );
    const distinctHotkeys = [...new Set(hotkeysOf.flat())];
    const distinctColdkeys = [...new Set(coldkeysOf.flat())];
    const round3 = await call(blockHash, [...round3Calls, ...distinctHotkeys.map(takeCall), ...distinctColdkeys.map(identityCall)]);
    const takeOf = new Map(distinctHotkeys.map((hotkey, index) => [hotkey, round3[round3Calls.length + index]]));
    const identityOf = new Map(distinctColdkeys.map((coldkey, index) => [coldkey, round3[round3Calls.length + distinctHotkeys.length + index]]));

    // Round 4: every (hotkey, coldkey) position found.
    const pairs: { netuid: number; hotkey: Hex; coldkey: Hex }[] = [];
    let at = 0;
    subnets.forEach((entry, index) => {
      for (const hotkey of hotkeysOf[index]!) {
        const stakers = round3[at + 2]!;
        at += 3;
        if (!stakers.ok) continue;
        for (const word of stakers.value as readonly bigint[]) pairs.push({ netuid: entry.netuid, hotkey, coldkey: toHex(word, { size: 32 }) });
      }
    });
    const positions = await stakesAt(blockHash, pairs);
    const stakes = pairs.flatMap((pair, index) => (positions[index]! > 0n ? [{ ...pair, alpha: positions[index]! }] : []));

    at = 0;
    const states: SubnetState[] = subnets.map((entry, index) => {
      const neurons = entry.neurons.map((fields, uid) => {
        const alphaStake = round3[at]!;
        const rootStake = round3[at + 1]!;
        at += 3;
        const neuron = toNeuron(uid, fields, alphaStake, rootStake);
        return { ...neuron, metadata: toNeuronMetadata(takeOf.get(neuron.hotkey), identityOf.get(neuron.coldkey), onDecodeError) };
      });
      return {
        netuid: entry.netuid,
        pool: toPool(entry.pool),
        emission: toEmission(entry.pool),
        settings: toSettings(entry.registeredAt, entry.settings),
        neurons,
        metadata: entry.metadata,
      };
    });
    return { rootNetuid, taoWeight, subnets: states, stakes, storage };
  };

  const stakesAt = async (blockHash: Hex, triples: readonly { hotkey: Hex; coldkey: Hex; netuid: number }[]): Promise<bigint[]> => {
    if (triples.length === 0) return [];
    const results = await call(
      blockHash,
      triples.map((triple) => viewCall(staking, stakingV2Abi, "getStake", [triple.hotkey, triple.coldkey, BigInt(triple.netuid)])),
    );
    return results.map((result) => (result.ok ? (result.value as bigint) : 0n));
  };

  return {
    read: (blockHash) => unlessUnavailable(() => readState(blockHash)),
    stakesOf: (blockHash, triples) => unlessUnavailable(() => stakesAt(blockHash, triples)),
    balancesOf: (blockHash, addresses) =>
      unlessUnavailable(async () => {
        if (addresses.length === 0) return [];
        const results = await call(
          blockHash,
          addresses.map((address) => viewCall(multicall3, multicall3Abi, "getEthBalance", [address])),
        );
        return results.map((result, index) => must(result, `getEthBalance(${addresses[index]})`) as bigint);
      }),
  };
}

const POOL_FUNCTIONS = [
  "getSubnetMechanism",
  "getTaoInPool",
  "getAlphaInPool",
  "getAlphaOutPool",
  "getAlphaIssuance",
  "getAlphaPrice",
  "getMovingAlphaPrice",
  "getSubnetVolume",
  "getEMAPriceHalvingBlocks",
  "getTaoInEmission",
  "getAlphaInEmission",
  "getAlphaOutEmission",
] as const;

const SETTINGS_FUNCTIONS = [
  "getNetworkRegistrationAllowed",
  "getNetworkPowRegistrationAllowed",
  "getMinBurn",
  "getMaxBurn",
  "getDifficulty",
  "getCommitRevealWeightsEnabled",
  "getCommitRevealWeightsInterval",
  "getLiquidAlphaEnabled",
  "getAlphaValues",
  "getYuma3Enabled",
  "getImmunityPeriod",
  "getKappa",
  "getRho",
  "getMinAllowedWeights",
  "getMaxWeightLimit",
  "getWeightsSetRateLimit",
  "getWeightsVersionKey",
  "getAdjustmentAlpha",
  "getActivityCutoff",
  "getAlphaSigmoidSteepness",
  "getBondsMovingAverage",
  "getServingRateLimit",
  "getMinDifficulty",
  "getMaxDifficulty",
] as const;

const NEURON_FUNCTIONS = [
  "getHotkey",
  "getColdkey",
  "getValidatorStatus",
  "getIsActive",
  "getDividends",
  "getVtrust",
  "getIncentive",
  "getConsensus",
  "getEmission",
  "getLastUpdate",
] as const;

/** A read the snapshot cannot do without; its failure fails the step (retried). */
function must(result: CallResult, what: string): unknown {
  if (!result.ok) throw new Error(`precompile read ${what} failed`);
  return result.value;
}

function optional<T>(result: CallResult | undefined): T | undefined {
  return result?.ok === true ? (result.value as T) : undefined;
}

function toPool(results: readonly CallResult[]): PoolState {
  const [mechanism, taoIn, alphaIn, alphaOut, issuance, price, moving, volume, halving] = results;
  const emaPriceHalvingBlocks = optional<bigint>(halving);
  return {
    mechanism: Number(must(mechanism!, "getSubnetMechanism")),
    taoIn: must(taoIn!, "getTaoInPool") as bigint,
    alphaIn: must(alphaIn!, "getAlphaInPool") as bigint,
    alphaOut: must(alphaOut!, "getAlphaOutPool") as bigint,
    alphaIssuance: must(issuance!, "getAlphaIssuance") as bigint,
    price: must(price!, "getAlphaPrice") as bigint,
    movingPrice: must(moving!, "getMovingAlphaPrice") as bigint,
    volume: must(volume!, "getSubnetVolume") as bigint,
    ...(emaPriceHalvingBlocks === undefined ? {} : { emaPriceHalvingBlocks }),
  };
}

function toEmission(results: readonly CallResult[]): EmissionState {
  return {
    taoInEmission: must(results[9]!, "getTaoInEmission") as bigint,
    alphaInEmission: must(results[10]!, "getAlphaInEmission") as bigint,
    alphaOutEmission: must(results[11]!, "getAlphaOutEmission") as bigint,
  };
}

/** Hyperparameters are optional on the event: a getter a node lacks is left out, not invented. */
function toSettings(registeredAtBlock: bigint, results: readonly CallResult[]): SubnetSettings {
  const values = Object.fromEntries(SETTINGS_FUNCTIONS.map((name, index) => [name, optional<unknown>(results[index])]));
  const pick = <T>(name: (typeof SETTINGS_FUNCTIONS)[number]) => values[name] as T | undefined;
  const settings: SubnetSettings = { registeredAtBlock };
  const set = <K extends keyof SubnetSettings>(key: K, value: SubnetSettings[K] | undefined) => {
    if (value !== undefined) settings[key] = value;
  };
  set("networkRegistrationAllowed", pick<boolean>("getNetworkRegistrationAllowed"));
  set("powRegistrationAllowed", pick<boolean>("getNetworkPowRegistrationAllowed"));
  set("minBurn", pick<bigint>("getMinBurn"));
  set("maxBurn", pick<bigint>("getMaxBurn"));
  set("difficulty", pick<bigint>("getDifficulty"));
  set("commitRevealEnabled", pick<boolean>("getCommitRevealWeightsEnabled"));
  set("commitRevealInterval", pick<bigint>("getCommitRevealWeightsInterval"));
  set("liquidAlphaEnabled", pick<boolean>("getLiquidAlphaEnabled"));
  set("alphaValues", pick<readonly [number, number]>("getAlphaValues"));
  set("yuma3Enabled", pick<boolean>("getYuma3Enabled"));
  set("immunityPeriod", pick<number>("getImmunityPeriod"));
  set("kappa", pick<number>("getKappa"));
  set("rho", pick<number>("getRho"));
  set("minAllowedWeights", pick<number>("getMinAllowedWeights"));
  set("maxWeightLimit", pick<number>("getMaxWeightLimit"));
  set("weightsSetRateLimit", pick<bigint>("getWeightsSetRateLimit"));
  set("weightsVersionKey", pick<bigint>("getWeightsVersionKey"));
  set("adjustmentAlpha", pick<bigint>("getAdjustmentAlpha"));
  set("activityCutoff", pick<number>("getActivityCutoff"));
  set("alphaSigmoidSteepness", pick<number>("getAlphaSigmoidSteepness"));
  set("bondsMovingAverage", pick<bigint>("getBondsMovingAverage"));
  set("servingRateLimit", pick<bigint>("getServingRateLimit"));
  set("minDifficulty", pick<bigint>("getMinDifficulty"));
  set("maxDifficulty", pick<bigint>("getMaxDifficulty"));
  return settings;
}

function toNeuron(uid: number, fields: readonly CallResult[], alphaStake: CallResult, rootStake: CallResult): NeuronRead {
  const [hotkey, coldkey, permit, active, dividends, vtrust, incentive, consensus, emission, lastUpdate] = fields;
  const root = optional<bigint>(rootStake);
  return {
    uid,
    hotkey: must(hotkey!, "getHotkey") as Hex,
    coldkey: must(coldkey!, "getColdkey") as Hex,
    validatorPermit: must(permit!, "getValidatorStatus") as boolean,
    active: must(active!, "getIsActive") as boolean,
    dividends: Number(must(dividends!, "getDividends")),
    vtrust: Number(must(vtrust!, "getVtrust")),
    incentive: Number(must(incentive!, "getIncentive")),
    consensus: Number(must(consensus!, "getConsensus")),
    emission: must(emission!, "getEmission") as bigint,
    lastUpdate: must(lastUpdate!, "getLastUpdate") as bigint,
    alphaStake: must(alphaStake, "getTotalAlphaStaked") as bigint,
    ...(root === undefined ? {} : { rootStake: root }),
  };
}
