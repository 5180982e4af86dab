import { type Chain, createPublicClient, type HttpTransport, http, type PublicClient } from "viem";
import type { ConfiguredChain } from "./chainConfig.js";
import { toViemChain } from "./toViemChain.js";

export interface ChainClients {
  chain: Chain;
  publicClient: PublicClient<HttpTransport, Chain>;
}

/**
 * Read clients for one configured chain. Every request has the configured deadline and a bounded
 * number of retries, so a stalled node turns into an error the caller can act on, never a hang.
 */
export function createChainClients(chain: ConfiguredChain): ChainClients {
  const viemChain = toViemChain(chain);
  const publicClient = createPublicClient({
    chain: viemChain,
    transport: http(chain.rpcUrl, {
      timeout: chain.rpc.timeoutMs,
      retryCount: chain.rpc.retryCount,
      retryDelay: chain.rpc.retryDelayMs,
    }),
  });
  return { chain: viemChain, publicClient };
}
