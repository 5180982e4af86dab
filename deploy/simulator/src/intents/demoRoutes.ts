import type { ChainConfig } from "@platform/chain";
import { type Address, getAddress, zeroAddress } from "viem";
import { chainById, type SettlerChain } from "./settlerChains.js";

/** A configured route between two settler chains, tokens as addresses (zero = native coin). */
export interface DemoRoute {
  origin: SettlerChain;
  destination: SettlerChain;
  inputToken: Address;
  outputToken: Address;
  fee: { bps: bigint; fixed: bigint };
  limits: { min: bigint; max: bigint };
}

/** The chains file's routes the demo users can trade on: both ends have a settler and known tokens. */
export function demoRoutes(config: ChainConfig, chains: readonly SettlerChain[]): DemoRoute[] {
  return config.routes.flatMap((route) => {
    const origin = chainById(chains, route.originChainId);
    const destination = chainById(chains, route.destinationChainId);
    if (origin === undefined || destination === undefined) return [];
    const inputToken = tokenAddress(config, origin, route.inputToken);
    const outputToken = tokenAddress(config, destination, route.outputToken);
    if (inputToken === undefined || outputToken === undefined) return [];
    return [
      {
        origin,
        destination,
        inputToken,
        outputToken,
        fee: { bps: BigInt(route.fee.bps), fixed: BigInt(route.fee.fixed) },
        limits: { min: BigInt(route.limits.min), max: BigInt(route.limits.max) },
      },
    ];
  });
}

/** What the route's fee model leaves to deliver: `input - fixed - ceil(input * bps / 10_000)`. */
export function outputAfterFee(route: Pick<DemoRoute, "fee">, inputAmount: bigint): bigint {
  return inputAmount - route.fee.fixed - (inputAmount * route.fee.bps + 9_999n) / 10_000n;
}

function tokenAddress(config: ChainConfig, chain: SettlerChain, token: string): Address | undefined {
  if (/^0x[0-9a-fA-F]{40}$/.test(token)) return getAddress(token);
  const configured = config.chains.find((candidate) => candidate.chainId === chain.chainId)!;
  if (token === configured.nativeCurrency.symbol) return zeroAddress;
  return Object.hasOwn(chain.tokens, token) ? chain.tokens[token] : undefined;
}
