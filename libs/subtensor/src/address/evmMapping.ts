import { blake2b } from "@noble/hashes/blake2";
import { hexToBytes } from "viem";

const EVM_PREFIX = new TextEncoder().encode("evm:");

/**
 * The Substrate account an EVM address acts as: Frontier's `HashedAddressMapping<BlakeTwo256>`,
 * blake2b-256 of `"evm:" ++ h160`. Value sent to an H160 lands on this account.
 */
export function evmAddressToAccountId(h160: `0x${string}`): Uint8Array {
  const address = hexToBytes(h160);
  if (address.length !== 20) throw new RangeError(`an EVM address is 20 bytes, got ${address.length}`);
  const input = new Uint8Array(EVM_PREFIX.length + address.length);
  input.set(EVM_PREFIX, 0);
  input.set(address, EVM_PREFIX.length);
  return blake2b(input, { dkLen: 32 });
}
