import { getAddress } from "viem";
import { ClientError } from "./clientError.js";
import {
  type Deployment,
  type DeploymentChain,
  type DeploymentRoute,
  type DeploymentToken,
  deploymentSchema,
} from "./deploymentsSchema.js";
import { localDeployment } from "./generated/deployments.js";

/**
 * The deployment data of the environments this package knows, as published in the repository's
 * deploy/config/<env>/deployment.v1.json. `local` is the devnet's template: its contracts are
 * deployed with each run, so their addresses are null here; load the file the launcher writes
 * (`.local/deployment.v1.json`) with `parseDeployment` to get them.
 */
export const deployments = { local: localDeployment } as const satisfies Record<string, Deployment>;
export type KnownEnvironment = keyof typeof deployments;

/** A deployment file that is not valid JSON of the schema, or whose parts do not refer to each other. */
export class DeploymentDataError extends ClientError {
  readonly code = "INVALID_DEPLOYMENT_DATA";
  constructor(readonly issues: readonly string[]) {
    super(`invalid deployment data: ${issues.join("; ")}`);
    this.name = "DeploymentDataError";
  }
}

/**
 * Checks another environment's deployment data (a parsed JSON document) against the schema and
 * across its parts (routes name listed chains and their tokens), and
 * returns it with every address checksummed. Throws DeploymentDataError.
 */
export function parseDeployment(json: unknown): Deployment {
  const parsed = deploymentSchema.safeParse(json);
  if (!parsed.success)
    throw new DeploymentDataError(
      parsed.error.issues.map((issue) => `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`),
    );
  const deployment = checksummed(parsed.data);
  const issues = crossReferenceIssues(deployment);
  if (issues.length > 0) throw new DeploymentDataError(issues);
  return deployment;
}

/** A route with its chains and tokens looked up. */
export interface ResolvedRoute {
  route: DeploymentRoute;
  origin: DeploymentChain;
  destination: DeploymentChain;
  inputToken: DeploymentToken;
  outputToken: DeploymentToken;
}

/** Every route of a (checked) deployment, with its chains and tokens. */
export function resolveRoutes(deployment: Deployment): ResolvedRoute[] {
  return deployment.routes.map((route) => {
    const origin = chainOf(deployment, route.originChainId);
    const destination = chainOf(deployment, route.destinationChainId);
    const inputToken = tokenOf(origin, route.inputToken);
    const outputToken = tokenOf(destination, route.outputToken);
    if (!origin || !destination || !inputToken || !outputToken)
      throw new DeploymentDataError([`route ${describeRoute(route)} names a chain or token the data does not list`]);
    return { route, origin, destination, inputToken, outputToken };
  });
}

export interface RouteQuery {
  originChainId: number;
  destinationChainId: number;
  /** A symbol or an address of the origin chain's token. */
  inputToken: string;
  /** A symbol or an address of the destination chain's token. */
  outputToken: string;
}

/** The deployment's route between two tokens, or undefined when it serves none. */
export function findRoute(deployment: Deployment, query: RouteQuery): ResolvedRoute | undefined {
  return resolveRoutes(deployment).find(
    (candidate) =>
      candidate.route.originChainId === query.originChainId &&
      candidate.route.destinationChainId === query.destinationChainId &&
      sameToken(candidate.inputToken, query.inputToken) &&
      sameToken(candidate.outputToken, query.outputToken),
  );
}

export function chainOf(deployment: Deployment, chainId: number): DeploymentChain | undefined {
  return deployment.chains.find((chain) => chain.chainId === chainId);
}

function tokenOf(chain: DeploymentChain | undefined, symbol: string): DeploymentToken | undefined {
  return chain?.tokens.find((token) => token.symbol === symbol);
}

function sameToken(token: DeploymentToken, symbolOrAddress: string): boolean {
  if (/^0x/i.test(symbolOrAddress)) return token.address?.toLowerCase() === symbolOrAddress.toLowerCase();
  return token.symbol === symbolOrAddress;
}

const describeRoute = (route: DeploymentRoute) =>
  `${route.inputToken}@${route.originChainId} → ${route.outputToken}@${route.destinationChainId}`;

function checksummed(deployment: Deployment): Deployment {
  const checksum = (address: string | null) => (address === null ? null : getAddress(address));
  return {
    ...deployment,
    chains: deployment.chains.map((chain) => ({
      ...chain,
      fullSettler: checksum(chain.fullSettler),
      tokens: chain.tokens.map((token) => ({ ...token, address: checksum(token.address) })),
    })),
  };
}

function crossReferenceIssues(deployment: Deployment): string[] {
  const issues: string[] = [];
  const repeats = <T>(values: T[]) => values.filter((value, index) => values.indexOf(value) !== index);
  for (const chainId of repeats(deployment.chains.map((chain) => chain.chainId)))
    issues.push(`chains: chain id ${chainId} is listed twice`);
  for (const chain of deployment.chains) {
    for (const symbol of repeats(chain.tokens.map((token) => token.symbol)))
      issues.push(`chain ${chain.chainId}: token ${symbol} is listed twice`);
    const addresses = chain.tokens.flatMap((token) => (token.address === null ? [] : [token.address]));
    for (const address of repeats(addresses))
      issues.push(`chain ${chain.chainId}: token address ${address} is listed twice`);
  }
  deployment.routes.forEach((route, index) => issues.push(...routeIssues(deployment, route, `routes.${index}`)));
  for (const route of repeats(deployment.routes.map(describeRoute))) issues.push(`routes: ${route} is listed twice`);
  return issues;
}

function routeIssues(deployment: Deployment, route: DeploymentRoute, at: string): string[] {
  const issues: string[] = [];
  const sides = [
    [route.originChainId, route.inputToken],
    [route.destinationChainId, route.outputToken],
  ] as const;
  for (const [chainId, symbol] of sides) {
    const chain = chainOf(deployment, chainId);
    if (chain === undefined) issues.push(`${at}: no chain ${chainId}`);
    else if (tokenOf(chain, symbol) === undefined) issues.push(`${at}: chain ${chainId} lists no token ${symbol}`);
  }
  if (route.originChainId === route.destinationChainId) issues.push(`${at}: origin and destination are one chain`);
  if (BigInt(route.limits.minInputAmount) > BigInt(route.limits.maxInputAmount))
    issues.push(`${at}: limits.minInputAmount is above limits.maxInputAmount`);
  return issues;
}
