import { type Chain, defineChain } from "viem";
import type { ConfiguredChain } from "./chainConfig.js";

/**
 * The viem chain for a configured chain. Multicall3 is declared when deployed, so viem's `multicall`
 * (and the batching the ingestor relies on) finds it without each caller passing an address.
 */
export function toViemChain(chain: ConfiguredChain): Chain {
  const multicall3 = chain.contracts.multicall3;
  return defineChain({
    id: chain.chainId,
    name: chain.name,
    nativeCurrency: chain.nativeCurrency,
    rpcUrls: { default: { http: [chain.rpcUrl] } },
    blockTime: chain.blockTimeMs,
    ...(multicall3 === undefined ? {} : { contracts: { multicall3: { address: multicall3 } } }),
  });
}
