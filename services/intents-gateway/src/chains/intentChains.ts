import {
  type ChainConfig,
  createRpcQuota,
  DEFAULT_USER_READS,
  type RpcQuota,
  toViemChain,
  type UserReadSettings,
  userReadTransport,
} from "@platform/chain";
import { type Address, type Chain, createPublicClient, type PublicClient, type Transport } from "viem";

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
    const client = createPublicClient({
      chain: toViemChain(chain),
      transport: userReadTransport(chain, quota, settings.maxRetries),
    });
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
