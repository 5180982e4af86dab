import { invalidArgument } from "@platform/errors";
import type { AccountId } from "@platform/proto/common/v1/network";
import { parseAccount } from "@platform/subtensor";

/**
 * The account a request names: SS58 (prefix 42), a 0x 32-byte public key, or a 0x 20-byte EVM
 * address (mapped with HashedAddressMapping). Anything else is INVALID_ADDRESS naming `parameter`.
 */
export function parseAddress(input: string, parameter = "address"): AccountId {
  try {
    const account = parseAccount(input.trim());
    return {
      ss58: account.ss58,
      publicKey: account.publicKey.toLowerCase(),
      ...(account.evmH160 === undefined ? {} : { evmH160: account.evmH160 }),
    };
  } catch {
    // Whatever the parser refused (bad checksum, length, prefix, alphabet) is the client's input.
    throw invalidArgument(
      "INVALID_ADDRESS",
      `${parameter} is not an SS58 address, a 32-byte public key or an EVM address`,
      { parameter },
    );
  }
}
