import { type Deployment, type DeploymentToken, parseDeployment } from "@chain-intents/client";
import type { ChainConfig } from "@platform/chain";
import { zeroAddress } from "viem";
import type { TokenCatalog } from "./tokenCatalog.js";

type ConfiguredChain = ChainConfig["chains"][number];

/**
 * The deployment data integrators read, made from the chains file the services load (chains,
 * settler and token addresses, routes with fees and limits) and the environment's token catalog
 * (names, decimals). Being computed from that file, never written by hand, is what keeps the two
 * from drifting: the launcher writes it next to the chains file it deploys, and the committed
 * deploy/config/<env>/deployment.v1.json is the same function of the committed template.
 *
 * Only chains that take part in intents are listed; a token whose decimals the catalog lacks and
 * that a route names is an error, not a silent omission.
 */
export function deploymentDataOf(config: ChainConfig, catalog: TokenCatalog): Deployment {
  const intentChains = config.chains.filter((chain) => chain.roles.some((role) => role !== "native"));
  const routeSymbols = new Map<number, Set<string>>();
  const routes = config.routes.map((route) => {
    const inputToken = symbolOf(chainNamed(intentChains, route.originChainId), route.inputToken);
    const outputToken = symbolOf(chainNamed(intentChains, route.destinationChainId), route.outputToken);
    addTo(routeSymbols, route.originChainId, inputToken);
    addTo(routeSymbols, route.destinationChainId, outputToken);
    return {
      originChainId: route.originChainId,
      destinationChainId: route.destinationChainId,
      inputToken,
      outputToken,
      limits: { minInputAmount: route.limits.min, maxInputAmount: route.limits.max },
      fee: { bps: route.fee.bps, fixedAmount: route.fee.fixed },
      fillTimeEstimateSeconds: route.fillTimeEstimateSeconds,
      quoteTtlSeconds: route.quoteTtlSeconds,
    };
  });
  const chains = intentChains.map((chain) => ({
    chainId: chain.chainId,
    name: chain.name,
    nativeCurrency: chain.nativeCurrency,
    fullSettler: chain.contracts.fullSettler ?? null,
    tokens: tokensOf(chain, catalog, routeSymbols.get(chain.chainId) ?? new Set()),
  }));
  return parseDeployment({ schemaVersion: 1, environment: config.environment, chains, routes });
}

/** The catalog's tokens of the chain, and its native coin when a route takes or pays it. */
function tokensOf(chain: ConfiguredChain, catalog: TokenCatalog, routeSymbols: Set<string>): DeploymentToken[] {
  const listed = catalog[chain.name] ?? {};
  const tokens: DeploymentToken[] = Object.entries(listed).map(([symbol, token]) => ({
    symbol,
    name: token.name,
    decimals: token.decimals,
    address: chain.contracts.tokens?.[symbol] ?? null,
  }));
  for (const symbol of routeSymbols) {
    if (Object.hasOwn(listed, symbol)) continue;
    if (symbol !== chain.nativeCurrency.symbol)
      throw new Error(`a route names ${symbol} on chain ${chain.name}: add its name and decimals to the token catalog`);
    tokens.push({
      symbol,
      name: chain.nativeCurrency.name,
      decimals: chain.nativeCurrency.decimals,
      address: zeroAddress,
    });
  }
  return tokens;
}

/** A route names a token by symbol, or by address once deployed: the data lists it by symbol. */
function symbolOf(chain: ConfiguredChain, token: string): string {
  if (!token.startsWith("0x")) return token;
  if (token.toLowerCase() === zeroAddress) return chain.nativeCurrency.symbol;
  const entry = Object.entries(chain.contracts.tokens ?? {}).find(
    ([, address]) => address.toLowerCase() === token.toLowerCase(),
  );
  if (entry === undefined) throw new Error(`a route names ${token}, which chain ${chain.name} does not list`);
  return entry[0];
}

function chainNamed(chains: ConfiguredChain[], chainId: number): ConfiguredChain {
  const chain = chains.find((candidate) => candidate.chainId === chainId);
  // The chains file's schema already refuses such a route; this keeps the error readable if not.
  if (chain === undefined) throw new Error(`a route names chain ${chainId}, which takes no part in intents`);
  return chain;
}

function addTo(map: Map<number, Set<string>>, chainId: number, symbol: string): void {
  const symbols = map.get(chainId) ?? new Set<string>();
  symbols.add(symbol);
  map.set(chainId, symbols);
}
