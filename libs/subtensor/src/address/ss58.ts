import { createHash } from "node:crypto";
import { base58 } from "@scure/base";
import { base58Decode } from "./base58.js";
import { InvalidAddressError } from "./errors.js";

/** Subtensor's network prefix (`SS58Prefix = 42` in the runtime; also the generic Substrate prefix). */
export const SUBTENSOR_SS58_PREFIX = 42;

const CHECKSUM_CONTEXT = new TextEncoder().encode("SS58PRE");
const ACCOUNT_ID_BYTES = 32;
// A 32-byte account id carries a 2-byte checksum (the SS58 spec's table).
const CHECKSUM_BYTES = 2;

// Node's native BLAKE2b-512 (OpenSSL): the checksum is on every address a request names, and the
// native hash costs about a third of the JavaScript one.
function checksumOf(payload: Uint8Array): Uint8Array {
  return createHash("blake2b512").update(CHECKSUM_CONTEXT).update(payload).digest().subarray(0, CHECKSUM_BYTES);
}

/** The prefix bytes: one byte below 64, else the two-byte "full" form of the SS58 spec. */
function prefixBytes(prefix: number): Uint8Array {
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > 16_383 || prefix === 46 || prefix === 47) {
    throw new RangeError(`SS58 prefix ${prefix} is not encodable`);
  }
  if (prefix < 64) return Uint8Array.of(prefix);
  return Uint8Array.of(((prefix & 0b1111_1100) >> 2) | 0b0100_0000, (prefix >> 8) | ((prefix & 0b11) << 6));
}

/** SS58 text of a 32-byte account id. */
export function ss58Encode(accountId: Uint8Array, prefix: number = SUBTENSOR_SS58_PREFIX): string {
  if (accountId.length !== ACCOUNT_ID_BYTES) {
    throw new RangeError(`an account id is ${ACCOUNT_ID_BYTES} bytes, got ${accountId.length}`);
  }
  const head = prefixBytes(prefix);
  const payload = new Uint8Array(head.length + ACCOUNT_ID_BYTES);
  payload.set(head, 0);
  payload.set(accountId, head.length);
  const full = new Uint8Array(payload.length + CHECKSUM_BYTES);
  full.set(payload, 0);
  full.set(checksumOf(payload), payload.length);
  return base58.encode(full);
}

export interface DecodedSs58 {
  prefix: number;
  accountId: Uint8Array;
}

/**
 * Decodes an SS58 address of a 32-byte account id and checks its checksum. Short account-index
 * forms (1 to 8 bytes) are not accounts the platform can look up, so they are rejected.
 */
export function ss58Decode(text: string): DecodedSs58 {
  let bytes: Uint8Array;
  try {
    bytes = base58Decode(text);
  } catch {
    throw new InvalidAddressError(text, "not base58");
  }
  if (bytes.length === 0) throw new InvalidAddressError(text, "empty");
  const first = bytes[0]!;
  let prefix: number;
  let headLength: number;
  if (first < 64) {
    prefix = first;
    headLength = 1;
  } else if (first < 128 && bytes.length > 1) {
    const second = bytes[1]!;
    prefix = ((first & 0b0011_1111) << 2) | (second >> 6) | ((second & 0b0011_1111) << 8);
    headLength = 2;
  } else {
    throw new InvalidAddressError(text, "unknown SS58 prefix form");
  }
  if (bytes.length !== headLength + ACCOUNT_ID_BYTES + CHECKSUM_BYTES) {
    throw new InvalidAddressError(text, "not the length of a 32-byte account id");
  }
  const payload = bytes.subarray(0, headLength + ACCOUNT_ID_BYTES);
  const expected = checksumOf(payload);
  const actual = bytes.subarray(headLength + ACCOUNT_ID_BYTES);
  if (expected[0] !== actual[0] || expected[1] !== actual[1]) {
    throw new InvalidAddressError(text, "bad SS58 checksum");
  }
  return { prefix, accountId: bytes.slice(headLength, headLength + ACCOUNT_ID_BYTES) };
}
