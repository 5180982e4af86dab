import {
  precompileAddresses,
  subtensorStorageDecoders as decoders,
  subtensorStorageDefaults as defaults,
  subtensorStorageKeys as keys,
  type ChainIdentityV2,
  type SubnetIdentityV3,
} from "@platform/subtensor";
import type { Hex } from "viem";
import { rawCall, type CallResult, type RawCall } from "./multicallAt.js";

/*
 * The storage items read through StorageQuery (0x…0807) for a snapshot, as raw calls to batch with
 * the precompile reads of the same block, and their decoding. A call that fails (a node without
 * the precompile, or one that refuses the key) leaves the value out; empty output means nothing is
 * stored, which is the pallet's default where the pallet defines one and "absent" otherwise.
 */

/** Network-wide items; each undefined when it could not be read. */
export interface NetworkStorage {
  totalIssuance?: bigint;
  blockEmission?: bigint;
  subnetLimit?: number;
}

/** A subnet's metadata that only storage holds. */
export interface SubnetMetadata {
  tempo?: number;
  symbol?: string;
  identity?: SubnetIdentityV3;
  ownerColdkey?: Hex;
  ownerHotkey?: Hex;
}

/** A neuron's delegate take (raw u16) and its coldkey's identity. */
export interface NeuronMetadata {
  take?: number;
  identity?: ChainIdentityV2;
}

/** Told about a stored value that does not decode as the item's type (a runtime that changed it). */
export type StorageDecodeErrorHandler = (item: string, error: unknown) => void;

const query = (key: Hex): RawCall => rawCall(precompileAddresses.storageQuery, key);

export const networkStorageCalls = (): RawCall[] => [query(keys.totalIssuance()), query(keys.blockEmission()), query(keys.subnetLimit())];

export const subnetStorageCalls = (netuid: number): RawCall[] => [
  query(keys.tempo(netuid)),
  query(keys.tokenSymbol(netuid)),
  query(keys.subnetIdentityV3(netuid)),
  query(keys.subnetOwner(netuid)),
  query(keys.subnetOwnerHotkey(netuid)),
];

export const takeCall = (hotkey: Hex): RawCall => query(keys.delegateTake(hotkey));
export const identityCall = (coldkey: Hex): RawCall => query(keys.identityV2(coldkey));

/**
 * One item's value: undefined when the call failed, the default (or undefined) when nothing is
 * stored, undefined (reported) when the bytes do not decode.
 */
export function storageValue<T>(
  item: string,
  result: CallResult | undefined,
  decode: (raw: Hex) => T | undefined,
  onDecodeError: StorageDecodeErrorHandler,
  fallback?: T,
): T | undefined {
  if (result === undefined || !result.ok) return undefined;
  try {
    return decode(result.value as Hex) ?? fallback;
  } catch (error) {
    onDecodeError(item, error);
    return undefined;
  }
}

const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;

export function toNetworkStorage(results: readonly CallResult[], onDecodeError: StorageDecodeErrorHandler): NetworkStorage {
  const [totalIssuance, blockEmission, subnetLimit] = results;
  return defined({
    totalIssuance: storageValue("TotalIssuance", totalIssuance, decoders.totalIssuance, onDecodeError),
    blockEmission: storageValue("BlockEmission", blockEmission, decoders.blockEmission, onDecodeError, defaults.blockEmission),
    subnetLimit: storageValue("SubnetLimit", subnetLimit, decoders.subnetLimit, onDecodeError, defaults.subnetLimit),
  });
}

export function toSubnetMetadata(netuid: number, results: readonly CallResult[], onDecodeError: StorageDecodeErrorHandler): SubnetMetadata {
  const [tempo, symbol, identity, owner, ownerHotkey] = results;
  return defined({
    tempo: storageValue(`Tempo[${netuid}]`, tempo, decoders.tempo, onDecodeError),
    symbol: storageValue(`TokenSymbol[${netuid}]`, symbol, decoders.tokenSymbol, onDecodeError, defaults.tokenSymbol),
    identity: storageValue(`SubnetIdentitiesV3[${netuid}]`, identity, decoders.subnetIdentityV3, onDecodeError),
    ownerColdkey: storageValue(`SubnetOwner[${netuid}]`, owner, decoders.subnetOwner, onDecodeError),
    ownerHotkey: storageValue(`SubnetOwnerHotkey[${netuid}]`, ownerHotkey, decoders.subnetOwnerHotkey, onDecodeError),
  });
}

export function toNeuronMetadata(take: CallResult | undefined, identity: CallResult | undefined, onDecodeError: StorageDecodeErrorHandler): NeuronMetadata {
  return defined({
    take: storageValue("Delegates", take, decoders.delegateTake, onDecodeError),
    identity: storageValue("IdentitiesV2", identity, decoders.identityV2, onDecodeError),
  });
}
