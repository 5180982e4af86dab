import { invalidArgument } from "@platform/errors";
import { getAddress, isAddress } from "viem";

/** Accepts an EVM address in any case and returns it EIP-55 checksummed; 400 INVALID_ADDRESS otherwise. */
export function parseWalletAddress(value: string, field = "walletAddress"): `0x${string}` {
  // strict: false accepts all-lowercase and all-uppercase forms, which wallets commonly send;
  // a mixed-case address with a wrong checksum is still rejected.
  if (!isAddress(value, { strict: false }) || (hasMixedCase(value) && !isAddress(value, { strict: true }))) {
    throw invalidArgument(
      "INVALID_ADDRESS",
      `${field} must be a 20-byte 0x-prefixed hex address with a valid EIP-55 checksum when mixed case`,
      {
        parameter: field,
      },
    );
  }
  return getAddress(value);
}

function hasMixedCase(value: string): boolean {
  const hex = value.slice(2);
  return hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
}
