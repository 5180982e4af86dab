import { type Address, erc20Abi, zeroAddress } from "viem";
import { chainUnavailable } from "./chainErrors.js";
import type { IntentChain } from "./intentChains.js";

export type TokenDecimals = (chain: IntentChain, token: Address) => Promise<number>;

/**
 * `decimals()` of a token, read once per (chain, token): a token's decimals never change. The zero
 * address is the native coin, whose decimals are configuration. A failed read is not cached.
 */
export function createTokenDecimals(): TokenDecimals {
  const cache = new Map<string, Promise<number>>();
  return (chain, token) => {
    if (token === zeroAddress) return Promise.resolve(chain.config.nativeCurrency.decimals);
    const key = `${chain.chainId}:${token}`;
    let decimals = cache.get(key);
    if (decimals === undefined) {
      decimals = chain.client
        .readContract({ address: token, abi: erc20Abi, functionName: "decimals" })
        .catch((error: unknown) => {
          cache.delete(key);
          throw chainUnavailable(chain.chainId, error);
        });
      cache.set(key, decimals);
    }
    return decimals;
  };
}
