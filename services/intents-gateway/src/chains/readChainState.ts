import { fullSettlerAbi } from "@platform/settler";
import type { Address } from "viem";
import { chainUnavailable } from "./chainErrors.js";
import type { IntentChain } from "./intentChains.js";

export interface ChainHead {
  number: bigint;
  hash: `0x${string}`;
  /** Unix seconds. */
  timestamp: number;
}

/** The chain's latest block: what every other read of one request is pinned to. */
export async function readHead(chain: IntentChain): Promise<ChainHead> {
  try {
    const block = await chain.client.getBlock({ blockTag: "latest" });
    return { number: block.number, hash: block.hash, timestamp: Number(block.timestamp) };
  } catch (error) {
    throw chainUnavailable(chain.chainId, error);
  }
}

/** `FullSettler.minFillWindow` and `maxFillBuffer`: `open` needs `now + min <= fillDeadline <= now + max` (origin clock). */
export interface FillDeadlineBounds {
  minFillWindow: number;
  maxFillBuffer: number;
}

/** The settler's fill deadline bounds, read at a block: the owner can change them at any time. */
export async function readFillDeadlineBounds(
  chain: IntentChain,
  settler: Address,
  blockNumber: bigint,
): Promise<FillDeadlineBounds> {
  try {
    const [minFillWindow, maxFillBuffer] = await Promise.all([
      chain.client.readContract({ address: settler, abi: fullSettlerAbi, functionName: "minFillWindow", blockNumber }),
      chain.client.readContract({ address: settler, abi: fullSettlerAbi, functionName: "maxFillBuffer", blockNumber }),
    ]);
    return { minFillWindow, maxFillBuffer };
  } catch (error) {
    throw chainUnavailable(chain.chainId, error);
  }
}
