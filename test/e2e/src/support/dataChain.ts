import { evmAddressToAccountId, priceFeedAbi } from "@platform/subtensor";
import { type Address, bytesToHex, type Chain, type Hex, type HttpTransport, type PublicClient } from "viem";

/*
 * Values the Data API tests compute for themselves, written independently of the services: the
 * coin/USD feed's round at a block, an EVM address's mapped account, and exact decimal arithmetic.
 */

/**
 * The coin/USD feed's latest round at one block of its own chain (the stack's origin chain, not the
 * native network), read through Chainlink's ABI.
 */
export async function priceRoundAt(
  client: PublicClient<HttpTransport, Chain>,
  feed: Address,
  blockNumber: bigint,
): Promise<{ roundId: bigint; answer: bigint; updatedAt: bigint }> {
  const [roundId, answer, , updatedAt] = await client.readContract({
    address: feed,
    abi: priceFeedAbi,
    functionName: "latestRoundData",
    blockNumber,
  });
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
export const valueRao = (alphaNalpha: bigint, priceTao: string): bigint =>
  (alphaNalpha * decimalUnits(priceTao, 18)) / 10n ** 18n;
