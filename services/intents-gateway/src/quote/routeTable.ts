import type { ChainConfig } from "@platform/chain";
import { type Address, getAddress, zeroAddress } from "viem";

type ConfiguredChain = ChainConfig["chains"][number];
type RouteConfig = ChainConfig["routes"][number];

/** A configured route with its tokens resolved to addresses (zero address = native coin). */
export interface QuotedRoute {
  originChainId: number;
  destinationChainId: number;
  inputToken: Address;
  outputToken: Address;
  fee: { bps: number; fixed: bigint };
  limits: { min: bigint; max: bigint };
  fillTimeEstimateSeconds: number;
  quoteTtlSeconds: number;
}

export interface RouteTable {
  routes: readonly QuotedRoute[];
  /** Routes whose token symbol the chains file does not resolve (contracts not deployed yet). */
  unresolved: ReadonlyArray<{ index: number; reason: string }>;
  /** Where integrators read the routes: the environment's deployment data, and its URL when published. */
  deploymentData: { environment: string; url?: string };
}

export interface RouteKey {
  originChainId: number;
  destinationChainId: number;
  inputToken: Address;
  outputToken: Address;
}

/**
 * The routes quotes and preflight accept, from the chains file. Symbols resolve through the chain's
 * `contracts.tokens` (or its native currency); a route that cannot be resolved is left out and
 * reported, so the service still serves the others.
 */
export function buildRouteTable(config: ChainConfig, deploymentDataUrl?: string): RouteTable {
  const chains = new Map(config.chains.map((chain) => [chain.chainId, chain]));
  const routes: QuotedRoute[] = [];
  const unresolved: Array<{ index: number; reason: string }> = [];
  config.routes.forEach((route, index) => {
    const input = resolveToken(chains.get(route.originChainId), route.inputToken);
    const output = resolveToken(chains.get(route.destinationChainId), route.outputToken);
    if (typeof input !== "string" || typeof output !== "string") {
      unresolved.push({
        index,
        reason: [input, output]
          .filter((side) => typeof side !== "string")
          .map((side) => side.problem)
          .join("; "),
      });
      return;
    }
    routes.push(toQuotedRoute(route, input, output));
  });
  const deploymentData = {
    environment: config.environment,
    ...(deploymentDataUrl !== undefined && isPublishable(deploymentDataUrl) ? { url: deploymentDataUrl } : {}),
  };
  return { routes, unresolved, deploymentData };
}

/**
 * Only a web address is shown to the public: a `file:` URL (the local stack's) names a path on
 * the server's disk, which is nothing a client can fetch and something it need not know; and one
 * with a user name or password (`https://user:secret@host/…`) would publish the credentials.
 */
function isPublishable(url: string): boolean {
  if (!/^https?:\/\//i.test(url)) return false;
  try {
    const parsed = new URL(url);
    return parsed.username === "" && parsed.password === "";
  } catch {
    return false;
  }
}

export function findRoute(table: RouteTable, key: RouteKey): QuotedRoute | undefined {
  return table.routes.find(
    (route) =>
      route.originChainId === key.originChainId &&
      route.destinationChainId === key.destinationChainId &&
      route.inputToken === key.inputToken &&
      route.outputToken === key.outputToken,
  );
}

function toQuotedRoute(route: RouteConfig, inputToken: Address, outputToken: Address): QuotedRoute {
  return {
    originChainId: route.originChainId,
    destinationChainId: route.destinationChainId,
    inputToken,
    outputToken,
    fee: { bps: route.fee.bps, fixed: BigInt(route.fee.fixed) },
    limits: { min: BigInt(route.limits.min), max: BigInt(route.limits.max) },
    fillTimeEstimateSeconds: route.fillTimeEstimateSeconds,
    quoteTtlSeconds: route.quoteTtlSeconds,
  };
}

function resolveToken(chain: ConfiguredChain | undefined, token: string): Address | { problem: string } {
  if (chain === undefined) return { problem: `token ${token}: chain not configured` };
  if (/^0x[0-9a-fA-F]{40}$/.test(token)) return getAddress(token);
  const address = chain.contracts.tokens?.[token];
  if (address !== undefined && Object.hasOwn(chain.contracts.tokens!, token)) return address;
  if (token === chain.nativeCurrency.symbol) return zeroAddress;
  return { problem: `token ${token} has no address on chain ${chain.name}` };
}
