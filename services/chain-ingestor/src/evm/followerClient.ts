import type { ConfiguredChain } from "@platform/chain";
import { type Client, createPublicClient, http } from "viem";

/**
 * A JSON-RPC client for following: requests issued together go out as one batched HTTP request
 * (a range of headers, the senders of a range's Opens), each with the chain's deadline and retries.
 */
export function followerClient(chain: ConfiguredChain): Client {
  return createPublicClient({
    transport: http(chain.rpcUrl, {
      batch: { batchSize: 250, wait: 0 },
      // A backlog range's logs run to tens of MB; ranges that exceed even this are halved.
      maxResponseBodySize: 128 * 1024 * 1024,
      timeout: chain.rpc.timeoutMs,
      retryCount: chain.rpc.retryCount,
      retryDelay: chain.rpc.retryDelayMs,
    }),
  });
}
