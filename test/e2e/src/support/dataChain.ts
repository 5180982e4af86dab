import { alphaAbi, evmAddressToAccountId, metagraphAbi, precompileAddresses, priceFeedAbi, stakingV2Abi, subnetAbi, WEI_PER_RAO } from "@platform/subtensor";
import { bytesToHex, toHex, type Abi, type Address, type Chain, type Hex, type HttpTransport, type PublicClient } from "viem";

/*
 * Direct reads of the devnet at one block, through the precompile mocks' ABIs: what each Data API
 * answer is compared with. Written independently of the chain-ingestor's reader on purpose.
 */

type Client = PublicClient<HttpTransport, Chain>;

export interface ChainAt {
  blockNumber: bigint;
  alpha(functionName: string, netuid: number): Promise<bigint>;
  /** `getTaoWeight()`: raw u64 (÷ u64::MAX). */
  taoWeight(): Promise<bigint>;
  metagraph<T = bigint>(functionName: string, netuid: number, uid?: number): Promise<T>;
  subnet<T = bigint>(functionName: string, netuid: number): Promise<T>;
  /** staking V2 `getStake(hotkey, coldkey, netuid)`, nalpha. */
  stake(hotkey: Hex, coldkey: Hex, netuid: number): Promise<bigint>;
  totalAlphaStaked(hotkey: Hex, netuid: number): Promise<bigint>;
  /** staking V2 `getAlphaStakedValidators`: despite its name, the coldkeys staking to the hotkey. */
  stakersOf(hotkey: Hex, netuid: number): Promise<Hex[]>;
  /** Native balance in rao (wei / 1e9, truncated as the chain's EVM balance conversion does). */
  balanceRao(address: Address): Promise<bigint>;
}

export function chainAt(client: Client, blockNumber: bigint): ChainAt {
  const read = <T>(address: Address, abi: Abi, functionName: string, args: readonly unknown[]) =>
    client.readContract({ address, abi, functionName, args, blockNumber } as never) as Promise<T>;
  return {
    blockNumber,
    alpha: (functionName, netuid) => read<bigint>(precompileAddresses.alpha, alphaAbi, functionName, [netuid]).then(BigInt),
    taoWeight: () => read<bigint>(precompileAddresses.alpha, alphaAbi, "getTaoWeight", []),
    metagraph: (functionName, netuid, uid) =>
      read(precompileAddresses.metagraph, metagraphAbi, functionName, uid === undefined ? [netuid] : [netuid, uid]),
    subnet: (functionName, netuid) => read(precompileAddresses.subnet, subnetAbi, functionName, [netuid]),
    stake: (hotkey, coldkey, netuid) => read<bigint>(precompileAddresses.stakingV2, stakingV2Abi, "getStake", [hotkey, coldkey, BigInt(netuid)]),
    totalAlphaStaked: (hotkey, netuid) => read<bigint>(precompileAddresses.stakingV2, stakingV2Abi, "getTotalAlphaStaked", [hotkey, BigInt(netuid)]),
    stakersOf: async (hotkey, netuid) =>
      (await read<readonly bigint[]>(precompileAddresses.stakingV2, stakingV2Abi, "getAlphaStakedValidators", [hotkey, BigInt(netuid)])).map((word) => toHex(word, { size: 32 })),
    balanceRao: async (address) => (await client.getBalance({ address, blockNumber })) / WEI_PER_RAO,
  };
}

/**
 * The coin/USD feed's latest round at one block of its own chain (the stack's origin chain, not the
 * native one), read through Chainlink's ABI.
 */
export async function priceRoundAt(client: Client, feed: Address, blockNumber: bigint): Promise<{ roundId: bigint; answer: bigint; updatedAt: bigint }> {
  const [roundId, answer, , updatedAt] = await client.readContract({ address: feed, abi: priceFeedAbi, functionName: "latestRoundData", blockNumber });
  return { roundId, answer, updatedAt };
}

/** The 32-byte account an EVM address maps to (HashedAddressMapping), as the API's `public_key`. */
export const publicKeyOf = (address: Address): Hex => bytesToHex(evmAddressToAccountId(address));

/** A decimal string ("0.047878607") as an integer count of 10^-decimals units, exactly; fails on more digits. */
export function decimalUnits(text: string, decimals: number): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (match === null) throw new Error(`not a decimal: ${text}`);
  const fraction = match[2] ?? "";
  if (fraction.length > decimals) throw new Error(`${text} has more than ${decimals} decimals`);
  return BigInt(`${match[1]}${fraction.padEnd(decimals, "0")}`);
}

/** alpha × price (TAO per alpha) in rao, truncated: how the API values a stake. */
export const valueRao = (alphaNalpha: bigint, priceTao: string): bigint => (alphaNalpha * decimalUnits(priceTao, 18)) / 10n ** 18n;
