import { createChainClients, type ChainConfig, type ChainClients } from "@platform/chain";
import type { Address } from "viem";

type ConfiguredChain = ChainConfig["chains"][number];

/** A chain quotes and preflight read: its configuration, a read client and its FullSettler, if deployed. */
export interface IntentChain {
  chainId: number;
  config: ConfiguredChain;
  client: ChainClients["publicClient"];
  settler: Address | undefined;
}

export type IntentChains = ReadonlyMap<number, IntentChain>;

/**
 * Read clients for every chain that takes part in intents (origin or destination role). Clients are
 * lazy (viem's http transport connects per request), so a chain whose RPC is down only fails the
 * requests that need it, not the service.
 */
export function createIntentChains(config: ChainConfig): IntentChains {
  const chains = new Map<number, IntentChain>();
  for (const chain of config.chains) {
    if (!chain.roles.some((role) => role === "origin" || role === "destination")) continue;
    chains.set(chain.chainId, { chainId: chain.chainId, config: chain, client: createChainClients(chain).publicClient, settler: chain.contracts.fullSettler });
  }
  return chains;
}
