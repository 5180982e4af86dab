import { blake2b } from "@noble/hashes/blake2";
import { xxhash64 } from "./xxhash64.js";

/*
 * Substrate's storage hashers (frame_support::StorageHasher). A storage key is
 * `twox128(pallet) ‖ twox128(item) ‖ hasher(encoded key)…`; the `Concat` hashers append the encoded
 * key after its hash, so the key can be read back from the storage key.
 */

const textBytes = (text: string) => new TextEncoder().encode(text);

function u64LE(value: bigint): Uint8Array {
  const bytes = new Uint8Array(8);
  for (let index = 0; index < 8; index++) bytes[index] = Number((value >> BigInt(index * 8)) & 0xffn);
  return bytes;
}

export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** `Twox128`: XXH64 with seeds 0 and 1, each little-endian, concatenated. */
export function twox128(input: Uint8Array | string): Uint8Array {
  const bytes = typeof input === "string" ? textBytes(input) : input;
  return concatBytes(u64LE(xxhash64(bytes, 0n)), u64LE(xxhash64(bytes, 1n)));
}

/** `Twox64Concat`: XXH64 (seed 0) little-endian, then the key. */
export function twox64Concat(key: Uint8Array): Uint8Array {
  return concatBytes(u64LE(xxhash64(key, 0n)), key);
}

/** `Blake2_128Concat`: BLAKE2b with a 16-byte digest, then the key. */
export function blake2_128Concat(key: Uint8Array): Uint8Array {
  return concatBytes(blake2b(key, { dkLen: 16 }), key);
}

/** `Identity`: the encoded key itself (used for keys an attacker cannot choose, such as `NetUid`). */
export function identityHasher(key: Uint8Array): Uint8Array {
  return key;
}

/** `twox128(pallet) ‖ twox128(item)`: the key of a plain value and the prefix of every entry of a map. */
export function storagePrefix(pallet: string, item: string): Uint8Array {
  return concatBytes(twox128(pallet), twox128(item));
}
