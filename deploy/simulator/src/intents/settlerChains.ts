import type { ChainConfig } from "@platform/chain";
import { toViemChain } from "@platform/chain";
import {
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  type HttpTransport,
  http,
  type PublicClient,
  type WalletClient,
} from "viem";

/** A chain with a FullSettler, as the simulator's roles use it. */
export interface SettlerChain {
  name: string;
  chainId: number;
  settler: Address;
  /** Test tokens by symbol. */
  tokens: Readonly<Record<string, Address>>;
  publicClient: PublicClient<HttpTransport, Chain>;
  wallet(account: Account): WalletClient<HttpTransport, Chain, Account>;
}

/**
 * Clients for every configured chain that has a FullSettler. Receipts are polled often: the devnet
 * mines every second, and viem's 4 s default would make each step wait for several blocks.
 */
export function settlerChains(config: ChainConfig, pollingIntervalMs = 200): SettlerChain[] {
  return config.chains.flatMap((configured) => {
    const settler = configured.contracts.fullSettler;
    if (settler === undefined) return [];
    const chain = toViemChain(configured);
    const transport = http(configured.rpcUrl, {
      timeout: configured.rpc.timeoutMs,
      retryCount: configured.rpc.retryCount,
      retryDelay: configured.rpc.retryDelayMs,
    });
    return [
      {
        name: configured.name,
        chainId: configured.chainId,
        settler,
        tokens: { ...configured.contracts.tokens },
        publicClient: createPublicClient({ chain, transport, pollingInterval: pollingIntervalMs }),
        wallet: (account: Account) =>
          createWalletClient({ chain, transport, account, pollingInterval: pollingIntervalMs }),
      },
    ];
  });
}

export function chainById(chains: readonly SettlerChain[], chainId: bigint | number): SettlerChain | undefined {
  return chains.find((chain) => chain.chainId === Number(chainId));
}
