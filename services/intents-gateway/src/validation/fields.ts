import { invalidArgument } from "@platform/errors";
import { type Address, getAddress, isAddress, maxUint256 } from "viem";

/**
 * Field parsers for gRPC requests. The gateway validated shapes already, but the service is also
 * reachable over gRPC directly, so every field is checked again here, naming the parameter.
 */

export function parseAddress(value: string, parameter: string): Address {
  if (!isAddress(value, { strict: false })) {
    throw invalidArgument("INVALID_ADDRESS", `${parameter} must be a 20-byte 0x-prefixed hex address`, { parameter });
  }
  return getAddress(value);
}

/** uint64 fields arrive as decimal strings (ts-proto forceLong=string); chain ids fit a JS number. */
export function parseChainId(value: string, parameter: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw invalidArgument("INVALID_PARAMETER", `${parameter} must be a positive chain id`, { parameter });
  }
  return Number(value);
}

/** A uint256 decimal string; `positive` rejects zero (amounts), nonces may be zero. */
export function parseUint256(value: string, parameter: string, options: { positive: boolean }): bigint {
  if (!/^(0|[1-9][0-9]{0,77})$/.test(value) || BigInt(value) > maxUint256 || (options.positive && value === "0")) {
    throw invalidArgument(
      "INVALID_PARAMETER",
      `${parameter} must be a ${options.positive ? "positive " : ""}decimal integer of at most 256 bits`,
      { parameter },
    );
  }
  return BigInt(value);
}

export const HASH32 = /^0x[0-9a-fA-F]{64}$/;

export function parseHash32(value: string, parameter: string): `0x${string}` {
  if (!HASH32.test(value))
    throw invalidArgument("INVALID_PARAMETER", `${parameter} must be a 0x-prefixed 32-byte hex value`, { parameter });
  return value.toLowerCase() as `0x${string}`;
}
