import { blake2AsU8a, xxhashAsU8a } from "@dedot/utils";
import type { Hex } from "viem";

/**
 * Storage keys built and values decoded for the large reads of a mainnet-sized state, from the
 * block's own metadata (hashers, key and value types), where dedot's `multi` spends its time.
 *
 * Why by hand: on the scale state a CPU profile put most of a large `multi` in dedot's per-key
 * `encodeKey` (the pallet and item prefix re-hashed with a BigInt xxhash for every key, the key
 * shape asserted, hex decoded by hand); built here a key costs a small fraction of that
 * (bench/native/scale measures both: its README's `fastStorage` figures). Only the key shapes the
 * native source reads are built here (AccountId32 and unsigned integers under Blake2_128Concat,
 * Twox64Concat or Identity); any other item, or a key given in another form, is left to dedot
 * (`undefined`), and a test checks every key built here against dedot's own for the items read.
 */
export interface FastStorage {
  /** The full storage key of a map entry (a tuple as an array for a multi-key map), or undefined to let dedot build it. */
  encodeKey(key: unknown): Hex | undefined;
  /** A value as dedot decodes it, from the node's raw answer (null or undefined: the item's default, or undefined for an Optional item). */
  decodeValue(raw: Hex | null | undefined): unknown;
}

/** The parts of dedot's storage entry metadata (`queryFn.meta`) read here. */
export interface StorageEntryMeta {
  pallet: string;
  name: string;
  modifier: string;
  storageType: { type: string; value: { hashers?: readonly string[]; keyTypeId?: number; valueTypeId: number } };
  default: Hex;
}

/** The parts of dedot's PortableRegistry read here. */
export interface TypeRegistry {
  findType(id: number): { typeDef: { type: string; value: unknown }; path?: readonly string[] };
  findCodec(id: number): { tryDecode(input: Uint8Array): unknown };
}

type KeyPart = (input: unknown) => Uint8Array | undefined;
type Hasher = (data: Uint8Array) => Uint8Array;

export function fastStorage(meta: StorageEntryMeta, registry: TypeRegistry): FastStorage | undefined {
  if (meta.storageType.type !== "Map") return undefined;
  const { hashers = [], keyTypeId, valueTypeId } = meta.storageType.value;
  if (keyTypeId === undefined || hashers.length === 0) return undefined;
  const keyTypes = hashers.length === 1 ? [keyTypeId] : tupleFields(registry, keyTypeId);
  if (keyTypes === undefined || keyTypes.length !== hashers.length) return undefined;
  const parts = keyTypes.map((id) => keyPartOf(registry, id));
  const hasherNames = hashers.map(normalizedHasher);
  const hashing = hasherNames.map(hasherOf);
  if (parts.some((part) => part === undefined) || hashing.some((hasher) => hasher === undefined)) return undefined;
  // An account under Blake2_128Concat (hotkeys, coldkeys) is hashed once and remembered: the same
  // accounts key several items block after block (blake2b in JavaScript showed in an epoch block's
  // read on bench/native/scale's state).
  const isAccount = keyTypes.map((id) => registry.findType(id).path?.at(-1) === "AccountId32");
  const remembered = hasherNames.map((name, index) => isAccount[index] && name === "blake2128concat");

  const prefix = Buffer.concat([xxhashAsU8a(meta.pallet, 128), xxhashAsU8a(meta.name, 128)]);
  const valueCodec = registry.findCodec(valueTypeId);
  const defaultBytes = Buffer.from(meta.default.slice(2), "hex");
  return {
    encodeKey(key) {
      const inputs =
        hashers.length === 1 ? [key] : Array.isArray(key) && key.length === hashers.length ? key : undefined;
      if (inputs === undefined) return undefined;
      const chunks: Uint8Array[] = [prefix];
      for (let index = 0; index < inputs.length; index += 1) {
        const input = inputs[index];
        const known =
          remembered[index] && typeof input === "string" ? hashedAccounts.get(input.toLowerCase()) : undefined;
        if (known !== undefined) {
          chunks.push(known);
          continue;
        }
        const encoded = parts[index]!(input);
        if (encoded === undefined) return undefined;
        const hashed = hashing[index]!(encoded);
        if (remembered[index]) rememberAccount((input as string).toLowerCase(), hashed);
        chunks.push(hashed);
      }
      return `0x${Buffer.concat(chunks).toString("hex")}`;
    },
    decodeValue(raw) {
      if (raw === null || raw === undefined)
        return meta.modifier === "Optional" ? undefined : valueCodec.tryDecode(defaultBytes);
      return valueCodec.tryDecode(Buffer.from(raw.slice(2), "hex"));
    },
  };
}

/** Blake2_128Concat of accounts (by lowercase hex), the oldest forgotten first past the bound. */
const hashedAccounts = new Map<string, Uint8Array>();
const ACCOUNTS_REMEMBERED = 400_000;

function rememberAccount(hex: string, hashed: Uint8Array): void {
  if (hashedAccounts.size >= ACCOUNTS_REMEMBERED) hashedAccounts.delete(hashedAccounts.keys().next().value!);
  hashedAccounts.set(hex, hashed);
}

function tupleFields(registry: TypeRegistry, id: number): number[] | undefined {
  const { typeDef } = registry.findType(id);
  return typeDef.type === "Tuple" ? [...(typeDef.value as { fields: number[] }).fields] : undefined;
}

const ACCOUNT_HEX = /^0x[0-9a-fA-F]{64}$/;
const UNSIGNED_BYTES: Record<string, number> = { u8: 1, u16: 2, u32: 4, u64: 8 };

/** How one key part is SCALE-encoded, for the types built here. */
function keyPartOf(registry: TypeRegistry, id: number): KeyPart | undefined {
  const type = registry.findType(id);
  if (type.typeDef.type === "Primitive") {
    const bytes = UNSIGNED_BYTES[(type.typeDef.value as { kind: string }).kind];
    if (bytes === undefined) return undefined;
    const max = 1n << BigInt(bytes * 8);
    return (input) => {
      if (typeof input !== "number" && typeof input !== "bigint") return undefined;
      const value = BigInt(input);
      if (value < 0n || value >= max) return undefined;
      const out = Buffer.alloc(bytes);
      for (let index = 0; index < bytes; index += 1) out[index] = Number((value >> BigInt(index * 8)) & 0xffn);
      return out;
    };
  }
  // AccountId32: a composite of one [u8; 32], encoded as its 32 bytes.
  if (type.path?.at(-1) === "AccountId32")
    return (input) =>
      typeof input === "string" && ACCOUNT_HEX.test(input) ? Buffer.from(input.slice(2), "hex") : undefined;
  return undefined;
}

/** A hasher's name as dedot spells it (`blake2_128Concat`) or the metadata does (`Blake2_128Concat`), as one spelling. */
const normalizedHasher = (name: string) => name.toLowerCase().replaceAll("_", "");

/** The hasher by its normalized name. */
function hasherOf(name: string): Hasher | undefined {
  switch (name) {
    case "blake2128concat":
      return (data) => Buffer.concat([blake2AsU8a(data, 128), data]);
    case "twox64concat":
      return (data) => Buffer.concat([xxhashAsU8a(data, 64), data]);
    case "identity":
      return (data) => data;
    default:
      return undefined;
  }
}
