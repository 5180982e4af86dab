import { getAddress, isAddress } from "viem";
import { z } from "zod";

/**
 * An EVM address in any case (mixed case must carry a valid EIP-55 checksum), returned checksummed.
 * A bad one is a 400 INVALID_ADDRESS naming the parameter.
 */
export const evmAddress = () =>
  z
    .string()
    .refine(
      (value) => isAddress(value, { strict: false }) && (!isMixedCase(value) || isAddress(value, { strict: true })),
      {
        error: "must be a 20-byte 0x-prefixed hex address (EIP-55 checksum when mixed case)",
        params: { code: "INVALID_ADDRESS" },
      },
    )
    .transform((value) => getAddress(value))
    .meta({
      description: "EVM address, any case; answers use the EIP-55 form",
      // The shape; that mixed case must be the EIP-55 checksum is the format's rule.
      pattern: "^0x[0-9a-fA-F]{40}$",
      format: "evm-address",
      examples: ["0x52908400098527886E0F7030069857D2E4169EE7"],
    });

function isMixedCase(value: string): boolean {
  const hex = value.slice(2);
  return hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
}
