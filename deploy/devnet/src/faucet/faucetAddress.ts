import { PlatformError } from "@platform/errors/base";
import { type AccountId, parseAccount } from "@platform/subtensor";
import { type Address, getAddress, isAddress } from "viem";

/**
 * Who the devnet faucet pays: an EVM address (ETH and test tokens on the anvil chains; TAO to the
 * account the Subtensor runtime maps it to) or a native account (SS58, or its 0x 32-byte public key),
 * which has TAO only.
 */
export type FaucetAddress =
  | {
      kind: "evm";
      address: Address /** Its account on Subtensor: blake2_256("evm:" ‖ h160), as the runtime maps it. */;
      native: AccountId;
    }
  | { kind: "native"; native: AccountId };

export class FaucetAddressError extends PlatformError {
  constructor(message: string) {
    super(message, { code: "INVALID_ADDRESS", retryable: false });
  }
}

const HEX_20 = /^0x[0-9a-fA-F]{40}$/;

/** Parses what a person types; a FaucetAddressError says what was wrong. */
export function parseFaucetAddress(input: string): FaucetAddress {
  if (HEX_20.test(input)) {
    // All one case carries no checksum; mixed case is EIP-55's, and a wrong one is a typo.
    if (!isAddress(input, { strict: true }))
      throw new FaucetAddressError(`${input}: not a valid EVM address (its mixed-case checksum does not match)`);
    const address = getAddress(input);
    return { kind: "evm", address, native: parseAccount(address) };
  }
  try {
    return { kind: "native", native: parseAccount(input) };
  } catch {
    throw new FaucetAddressError(
      `${input}: not an address: give an EVM address (0x and 40 hex digits) or a Subtensor SS58 address (prefix 42)`,
    );
  }
}
