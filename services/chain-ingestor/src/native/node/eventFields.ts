import { type AccountId, accountFromEvmAddress, accountFromPublicKey } from "@platform/subtensor";
import type { Hex } from "viem";

/**
 * Readers of decoded event fields. Clients give an AccountId32 as an object with the raw public
 * key (dedot: `{ raw }`) or as a hex string, integers as bigint or number; each reader answers
 * undefined for anything else, so an event whose shape changed in another runtime is recognised as
 * unknown instead of misread.
 */

const PUBLIC_KEY = /^0x[0-9a-fA-F]{64}$/;
const H160 = /^0x[0-9a-fA-F]{40}$/;

export function accountField(value: unknown): AccountId | undefined {
  const raw = typeof value === "object" && value !== null && "raw" in value ? (value as { raw: unknown }).raw : value;
  return typeof raw === "string" && PUBLIC_KEY.test(raw) ? accountFromPublicKey(raw.toLowerCase() as Hex) : undefined;
}

/**
 * An AccountId32's public key alone (lowercase hex), without the SS58 form accountField computes:
 * reading a mainnet-sized map (111,000 `Alpha` keys, two accounts each) that costs seconds.
 */
export function publicKeyField(value: unknown): Hex | undefined {
  const raw = typeof value === "object" && value !== null && "raw" in value ? (value as { raw: unknown }).raw : value;
  return typeof raw === "string" && PUBLIC_KEY.test(raw) ? (raw.toLowerCase() as Hex) : undefined;
}

export function evmAccountField(value: unknown): AccountId | undefined {
  return typeof value === "string" && H160.test(value) ? accountFromEvmAddress(value as Hex) : undefined;
}

export function amountField(value: unknown): bigint | undefined {
  if (typeof value === "bigint") return value >= 0n ? value : undefined;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  return undefined;
}

export function netuidField(value: unknown): number | undefined {
  const amount = amountField(value);
  return amount !== undefined && amount <= 65_535n ? Number(amount) : undefined;
}

/** The fields of a tuple variant when it has exactly `arity` of them. */
export function tupleFields(data: unknown, arity: number): readonly unknown[] | undefined {
  return Array.isArray(data) && data.length === arity ? data : undefined;
}

/** The fields of a named variant. */
export function namedFields(data: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof data === "object" && data !== null && !Array.isArray(data) && !("raw" in data)
    ? (data as Record<string, unknown>)
    : undefined;
}

/** Every AccountId32 among an event's top-level fields (for events the source has no meaning for). */
export function accountsIn(data: unknown): AccountId[] {
  const values = Array.isArray(data) ? data : namedFields(data) !== undefined ? Object.values(data as object) : [data];
  const found = new Map<string, AccountId>();
  for (const value of values) {
    const account = accountField(value);
    if (account !== undefined) found.set(account.publicKey, account);
  }
  return [...found.values()];
}
