import { hexToBytes, type Hex } from "viem";

/*
 * The few SCALE (parity-scale-codec) shapes the ingestion reads from raw storage: fixed-width
 * little-endian integers, compact integers, `Vec<u8>` (compact length then bytes) and 32-byte
 * account ids. Decoding is strict: a value with bytes left over or cut short is an error, because
 * it means the key or the type assumed for it is wrong.
 */

export const SCALE_DECODE_FAILED = "SCALE_DECODE_FAILED";

/** Raw storage bytes that do not decode as the type expected for the item. */
export class ScaleDecodeError extends Error {
  override readonly name = "ScaleDecodeError";
  readonly code = SCALE_DECODE_FAILED;
}

/** A cursor over SCALE bytes; each read advances it. */
export interface ScaleReader {
  u8(): number;
  u16(): number;
  u32(): number;
  u64(): bigint;
  u128(): bigint;
  compact(): bigint;
  /** `Vec<u8>`: compact length, then that many bytes. */
  bytes(): Uint8Array;
  /** A fixed-length byte array such as `AccountId32`. */
  fixed(length: number): Uint8Array;
  /** Fails unless every byte was read. */
  end(): void;
}

export function scaleReader(input: Uint8Array | Hex): ScaleReader {
  const data = typeof input === "string" ? hexToBytes(input) : input;
  let at = 0;
  const take = (length: number): Uint8Array => {
    if (at + length > data.length) throw new ScaleDecodeError(`SCALE input ends at byte ${data.length}, needed ${at + length}`);
    const slice = data.subarray(at, at + length);
    at += length;
    return slice;
  };
  const uint = (length: number): bigint => {
    const slice = take(length);
    let value = 0n;
    for (let index = length - 1; index >= 0; index--) value = (value << 8n) | BigInt(slice[index]!);
    return value;
  };
  const compact = (): bigint => {
    const first = data[at];
    if (first === undefined) throw new ScaleDecodeError("SCALE input ends before a compact integer");
    switch (first & 0b11) {
      case 0b00:
        return uint(1) >> 2n;
      case 0b01:
        return uint(2) >> 2n;
      case 0b10:
        return uint(4) >> 2n;
      default: {
        // Big-integer mode: the upper six bits give the byte count minus four.
        const length = (first >> 2) + 4;
        take(1);
        return uint(length);
      }
    }
  };
  return {
    u8: () => Number(uint(1)),
    u16: () => Number(uint(2)),
    u32: () => Number(uint(4)),
    u64: () => uint(8),
    u128: () => uint(16),
    compact,
    bytes: () => {
      const length = compact();
      if (length > BigInt(data.length - at)) throw new ScaleDecodeError(`Vec<u8> of ${length} bytes in ${data.length - at} remaining`);
      return take(Number(length)).slice();
    },
    fixed: (length) => take(length).slice(),
    end: () => {
      if (at !== data.length) throw new ScaleDecodeError(`${data.length - at} unread bytes after the SCALE value`);
    },
  };
}

function uintLE(value: bigint | number, length: number): Uint8Array {
  let rest = BigInt(value);
  if (rest < 0n || rest >= 1n << BigInt(length * 8)) throw new RangeError(`${value} does not fit in ${length} bytes`);
  const out = new Uint8Array(length);
  for (let index = 0; index < length; index++) {
    out[index] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return out;
}

export const encodeU16 = (value: number) => uintLE(value, 2);
export const encodeU64 = (value: bigint) => uintLE(value, 8);
export const encodeU128 = (value: bigint) => uintLE(value, 16);

export function encodeCompact(value: bigint | number): Uint8Array {
  const n = BigInt(value);
  if (n < 0n) throw new RangeError("a compact integer is unsigned");
  if (n < 1n << 6n) return uintLE(n << 2n, 1);
  if (n < 1n << 14n) return uintLE((n << 2n) | 0b01n, 2);
  if (n < 1n << 30n) return uintLE((n << 2n) | 0b10n, 4);
  let length = 4;
  while (n >= 1n << BigInt(length * 8)) length++;
  if (length > 67) throw new RangeError("compact integer too large");
  const out = new Uint8Array(1 + length);
  out[0] = ((length - 4) << 2) | 0b11;
  out.set(uintLE(n, length), 1);
  return out;
}

/** `Vec<u8>` from bytes or UTF-8 text. */
export function encodeBytes(value: Uint8Array | string): Uint8Array {
  const bytes = typeof value === "string" ? new TextEncoder().encode(value) : value;
  const prefix = encodeCompact(bytes.length);
  const out = new Uint8Array(prefix.length + bytes.length);
  out.set(prefix, 0);
  out.set(bytes, prefix.length);
  return out;
}

/**
 * Chain text (`Vec<u8>` that users set) as a string. Invalid UTF-8 becomes U+FFFD rather than an
 * error: one badly encoded identity must not stop a whole snapshot.
 */
export function utf8Text(bytes: Uint8Array): string {
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes);
}

