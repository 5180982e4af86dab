import { keccak256, stringToHex, type Hex, type PrivateKeyAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";

/**
 * The EVM accounts whose activity the simulator generates: transfers between them and stakes
 * through staking V2. Their keys follow from the seed alone, so a test (or a second process) derives
 * the same accounts and can sign for them; they are devnet-only keys, never funded anywhere else.
 */
export function networkTestAccounts(seed: string, count: number): PrivateKeyAccount[] {
  return Array.from({ length: count }, (_, index) => privateKeyToAccount(networkTestKey(seed, index)));
}

export function networkTestKey(seed: string, index: number): Hex {
  return keccak256(stringToHex(`network-simulator:${seed}:account:${index}`));
}
