import { bytesToHex, hexToBytes, type Hex } from "viem";
import { blake2_128Concat, concatBytes, identityHasher, storagePrefix, twox128 } from "./hashers.js";
import { encodeU16, scaleReader, utf8Text, type ScaleReader } from "./scale.js";

/*
 * The `SubtensorModule` storage items the network ingestion reads through StorageQuery (0x…0807),
 * with their key layout and value type as `pallets/subtensor/src/lib.rs` declares them. Every
 * builder answers the raw storage key (the precompile's whole calldata); every decoder takes the
 * precompile's raw output, where empty means "nothing stored" (the precompile does not apply a
 * ValueQuery default: the caller decides what absence means, see `storageDefaults`).
 */

const PALLET = "SubtensorModule";

/** The pallets whose keys StorageQuery answers (`AUTHORIZED_PREFIXES` of `storage_query.rs`); others revert. */
export const STORAGE_QUERY_PALLETS = ["SubtensorModule", "Swap", "Balances", "Proxy", "Scheduler", "Drand", "Crowdloan", "Sudo", "Multisig", "Timestamp"] as const;

export function storageQueryAllows(key: Hex): boolean {
  const prefix = key.slice(0, 34).toLowerCase();
  return STORAGE_QUERY_PALLETS.some((pallet) => bytesToHex(twox128(pallet)) === prefix);
}

const valueKey = (item: string): Hex => bytesToHex(storagePrefix(PALLET, item));
const netuidKey = (item: string, netuid: number, hasher: (key: Uint8Array) => Uint8Array): Hex =>
  bytesToHex(concatBytes(storagePrefix(PALLET, item), hasher(encodeU16(netuid))));
const accountKey = (item: string, account: Hex): Hex => {
  const bytes = hexToBytes(account);
  if (bytes.length !== 32) throw new RangeError(`an account id is 32 bytes, got ${bytes.length}`);
  return bytesToHex(concatBytes(storagePrefix(PALLET, item), blake2_128Concat(bytes)));
};

/** Raw storage keys. `NetUid` encodes as its u16, little-endian. */
export const subtensorStorageKeys = {
  /** `TotalIssuance`: TaoBalance (u64), rao. */
  totalIssuance: () => valueKey("TotalIssuance"),
  /** `BlockEmission`: u64, rao per block. */
  blockEmission: () => valueKey("BlockEmission"),
  /** `SubnetLimit`: u16. */
  subnetLimit: () => valueKey("SubnetLimit"),
  /** `Tempo[netuid]` (Identity): u16 blocks. */
  tempo: (netuid: number) => netuidKey("Tempo", netuid, identityHasher),
  /** `TokenSymbol[netuid]` (Identity): Vec<u8>. */
  tokenSymbol: (netuid: number) => netuidKey("TokenSymbol", netuid, identityHasher),
  /** `SubnetOwner[netuid]` (Identity): AccountId (the owner coldkey). */
  subnetOwner: (netuid: number) => netuidKey("SubnetOwner", netuid, identityHasher),
  /** `SubnetOwnerHotkey[netuid]` (Identity): AccountId. */
  subnetOwnerHotkey: (netuid: number) => netuidKey("SubnetOwnerHotkey", netuid, identityHasher),
  /** `SubnetIdentitiesV3[netuid]` (Blake2_128Concat): SubnetIdentityV3, OptionQuery. */
  subnetIdentityV3: (netuid: number) => netuidKey("SubnetIdentitiesV3", netuid, blake2_128Concat),
  /** `Delegates[hotkey]` (Blake2_128Concat): PerU16 take. */
  delegateTake: (hotkey: Hex) => accountKey("Delegates", hotkey),
  /** `IdentitiesV2[coldkey]` (Blake2_128Concat): ChainIdentityV2, OptionQuery. */
  identityV2: (coldkey: Hex) => accountKey("IdentitiesV2", coldkey),
} as const;

/** `SubnetIdentityV3`, field order as declared (SCALE encodes a struct as its fields in order). */
export interface SubnetIdentityV3 {
  subnetName: string;
  githubRepo: string;
  subnetContact: string;
  subnetUrl: string;
  discord: string;
  description: string;
  logoUrl: string;
  additional: string;
}

/** `ChainIdentityV2`, field order as declared. */
export interface ChainIdentityV2 {
  name: string;
  url: string;
  githubRepo: string;
  image: string;
  discord: string;
  description: string;
  additional: string;
}

const SUBNET_IDENTITY_FIELDS = ["subnetName", "githubRepo", "subnetContact", "subnetUrl", "discord", "description", "logoUrl", "additional"] as const;
const CHAIN_IDENTITY_FIELDS = ["name", "url", "githubRepo", "image", "discord", "description", "additional"] as const;

/** Decodes a whole value, or answers undefined for empty output (no value stored). */
function decodeWhole<T>(raw: Hex | Uint8Array, read: (reader: ScaleReader) => T): T | undefined {
  const bytes = typeof raw === "string" ? hexToBytes(raw) : raw;
  if (bytes.length === 0) return undefined;
  const reader = scaleReader(bytes);
  const value = read(reader);
  reader.end();
  return value;
}

function textStruct<const F extends readonly string[]>(fields: F) {
  return (reader: ScaleReader) => Object.fromEntries(fields.map((field) => [field, utf8Text(reader.bytes())])) as Record<F[number], string>;
}

/** Decoders of the precompile's raw output; undefined when nothing is stored at the key. */
export const subtensorStorageDecoders = {
  totalIssuance: (raw: Hex | Uint8Array) => decodeWhole(raw, (reader) => reader.u64()),
  blockEmission: (raw: Hex | Uint8Array) => decodeWhole(raw, (reader) => reader.u64()),
  subnetLimit: (raw: Hex | Uint8Array) => decodeWhole(raw, (reader) => reader.u16()),
  tempo: (raw: Hex | Uint8Array) => decodeWhole(raw, (reader) => reader.u16()),
  tokenSymbol: (raw: Hex | Uint8Array) => decodeWhole(raw, (reader) => utf8Text(reader.bytes())),
  subnetOwner: (raw: Hex | Uint8Array) => decodeWhole(raw, (reader) => bytesToHex(reader.fixed(32))),
  subnetOwnerHotkey: (raw: Hex | Uint8Array) => decodeWhole(raw, (reader) => bytesToHex(reader.fixed(32))),
  subnetIdentityV3: (raw: Hex | Uint8Array): SubnetIdentityV3 | undefined => decodeWhole(raw, textStruct(SUBNET_IDENTITY_FIELDS)),
  delegateTake: (raw: Hex | Uint8Array) => decodeWhole(raw, (reader) => reader.u16()),
  identityV2: (raw: Hex | Uint8Array): ChainIdentityV2 | undefined => decodeWhole(raw, textStruct(CHAIN_IDENTITY_FIELDS)),
} as const;

/**
 * What the pallet answers for a ValueQuery item with nothing stored (its `#[pallet::type_value]`
 * default), for the items whose default is a constant of the pallet rather than of a runtime's
 * config. StorageQuery returns empty output for them; the chain's own reads return these.
 */
export const subtensorStorageDefaults = {
  /** `DefaultBlockEmission`. */
  blockEmission: 1_000_000_000n,
  /** `DefaultSubnetLimit`. */
  subnetLimit: 128,
  /** `DefaultUnicodeVecU8`: 𝜏 (U+1D70F). */
  tokenSymbol: "\u{1D70F}",
} as const;
