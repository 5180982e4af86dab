/*
 * XXH64 (the 64-bit xxHash), the hash behind Substrate's `Twox` storage hashers. Plain BigInt
 * arithmetic modulo 2^64: storage keys are short and computed a few hundred times per block at most,
 * so clarity wins over speed, and no native addon is needed.
 */

const MASK = (1n << 64n) - 1n;
const PRIME1 = 0x9e3779b185ebca87n;
const PRIME2 = 0xc2b2ae3d27d4eb4fn;
const PRIME3 = 0x165667b19e3779f9n;
const PRIME4 = 0x85ebca77c2b2ae63n;
const PRIME5 = 0x27d4eb2f165667c5n;

const rotl = (value: bigint, bits: bigint) => ((value << bits) | (value >> (64n - bits))) & MASK;

function round(acc: bigint, lane: bigint): bigint {
  return (rotl((acc + lane * PRIME2) & MASK, 31n) * PRIME1) & MASK;
}

function mergeRound(acc: bigint, lane: bigint): bigint {
  return (((acc ^ round(0n, lane)) * PRIME1) + PRIME4) & MASK;
}

function readLE(bytes: Uint8Array, at: number, length: number): bigint {
  let value = 0n;
  for (let index = length - 1; index >= 0; index--) value = (value << 8n) | BigInt(bytes[at + index]!);
  return value;
}

/** XXH64 of `input` with a 64-bit seed. */
export function xxhash64(input: Uint8Array, seed = 0n): bigint {
  const length = input.length;
  let at = 0;
  let hash: bigint;
  if (length >= 32) {
    let v1 = (seed + PRIME1 + PRIME2) & MASK;
    let v2 = (seed + PRIME2) & MASK;
    let v3 = seed & MASK;
    let v4 = (seed - PRIME1) & MASK;
    for (; at + 32 <= length; at += 32) {
      v1 = round(v1, readLE(input, at, 8));
      v2 = round(v2, readLE(input, at + 8, 8));
      v3 = round(v3, readLE(input, at + 16, 8));
      v4 = round(v4, readLE(input, at + 24, 8));
    }
    hash = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & MASK;
    for (const lane of [v1, v2, v3, v4]) hash = mergeRound(hash, lane);
  } else {
    hash = (seed + PRIME5) & MASK;
  }
  hash = (hash + BigInt(length)) & MASK;
  for (; at + 8 <= length; at += 8) {
    hash ^= round(0n, readLE(input, at, 8));
    hash = (rotl(hash, 27n) * PRIME1 + PRIME4) & MASK;
  }
  if (at + 4 <= length) {
    hash ^= (readLE(input, at, 4) * PRIME1) & MASK;
    hash = (rotl(hash, 23n) * PRIME2 + PRIME3) & MASK;
    at += 4;
  }
  for (; at < length; at++) {
    hash ^= (BigInt(input[at]!) * PRIME5) & MASK;
    hash = (rotl(hash, 11n) * PRIME1) & MASK;
  }
  hash ^= hash >> 33n;
  hash = (hash * PRIME2) & MASK;
  hash ^= hash >> 29n;
  hash = (hash * PRIME3) & MASK;
  hash ^= hash >> 32n;
  return hash;
}
