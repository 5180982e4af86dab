import type { Address } from "viem";

/**
 * Subtensor's EVM precompiles, at `H160::from_low_u64_be(INDEX)` of each `precompiles/src/*.rs`
 * (research data-api §2.4.1). The devnet places its mocks at exactly these addresses, so the same
 * code reads the devnet and the real network.
 */
export const precompileAddresses = {
  /** `transfer(bytes32)`: sends msg.value to a Substrate public key. */
  balanceTransfer: "0x0000000000000000000000000000000000000800",
  /** Legacy staking, amounts in wei. */
  stakingV1: "0x0000000000000000000000000000000000000801",
  metagraph: "0x0000000000000000000000000000000000000802",
  subnet: "0x0000000000000000000000000000000000000803",
  /** Staking with amounts in rao and nano-alpha. */
  stakingV2: "0x0000000000000000000000000000000000000805",
  /** Raw storage read: input is the storage key, output the SCALE bytes. */
  storageQuery: "0x0000000000000000000000000000000000000807",
  alpha: "0x0000000000000000000000000000000000000808",
  addressMapping: "0x000000000000000000000000000000000000080c",
} as const satisfies Record<string, Address>;

export type PrecompileName = keyof typeof precompileAddresses;

/** The root subnet: stable mechanism, price fixed at 1, its alpha is TAO. */
export const ROOT_NETUID = 0;
