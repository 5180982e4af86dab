import { toViemChain, type ChainConfig } from "@platform/chain";
import { createPublicClient, http, type Address, type Chain, type PublicClient, type Transport } from "viem";
import { createRpcQuota, withQuota, type RpcQuota, type RpcQuotaLimits } from "./rpcQuota.js";

type ConfiguredChain = ChainConfig["chains"][number];

/** A chain quotes and preflight read: its configuration, a read client and its FullSettler, if deployed. */
export interface IntentChain {
  chainId: number;
  config: ConfiguredChain;
  client: PublicClient<Transport, Chain>;
  settler: Address | undefined;
  /** The budget every request of `client` passes through. */
  quota: RpcQuota;
}

export type IntentChains = ReadonlyMap<number, IntentChain>;

export interface UserReadSettings extends RpcQuotaLimits {
  /** Retries of a failed request, at most; a user can retry, and retries multiply a burst's load. */
  maxRetries: number;
}

/** Defaults: the gateway's reads of one chain never hold more than 32 requests at the node. */
export const DEFAULT_USER_READS: UserReadSettings = { maxInFlight: 32, maxQueued: 128, maxRetries: 1 };

/**
 * Read clients for every chain that takes part in intents (origin or destination role). Everything
 * here is user-triggered (quotes, preflight's eth_calls, notification look-ups), so it gets its own
 * client: the chain's `preflightRpcUrl` when configured, else its `rpcUrl`, with its own quota and
 * at most `maxRetries` retries. Clients are lazy (viem's http transport connects per request), so a
 * chain whose RPC is down only fails the requests that need it, not the service.
 */
export function createIntentChains(config: ChainConfig, settings: UserReadSettings = DEFAULT_USER_READS): IntentChains {
  const chains = new Map<number, IntentChain>();
  for (const chain of config.chains) {
    if (!chain.roles.some((role) => role === "origin" || role === "destination")) continue;
    const quota = createRpcQuota(chain.chainId, settings);
    const transport = http(chain.preflightRpcUrl ?? chain.rpcUrl, {
      timeout: chain.rpc.timeoutMs,
      retryCount: Math.min(chain.rpc.retryCount, settings.maxRetries),
      retryDelay: chain.rpc.retryDelayMs,
    });
    const client = createPublicClient({ chain: toViemChain(chain), transport: withQuota(transport, quota) });
    chains.set(chain.chainId, {
      chainId: chain.chainId,
      config: chain,
      client,
      settler: chain.contracts.fullSettler,
      quota,
    });
  }
  return chains;
}
