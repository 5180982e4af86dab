import type { Address } from "viem";
import type { RouteTable } from "../quote/routeTable.js";
import { unsupportedRoute } from "../quote/unsupportedRoute.js";

export interface OrderTokens {
  originChainId: number;
  destinationChainId: number;
  inputToken: Address;
  outputToken: Address;
}

/**
 * Preflight reads balances, the allowance and decimals of the order's tokens and simulates `open`,
 * which calls the input token: a contract the user names would run on the node at the service's
 * expense (and its revert data is parsed here). Only tokens a configured route names are read:
 * the input token must be the input of a route from the origin chain, the output token the output
 * of a route to the destination chain. A pairing of two such tokens that no route offers is still
 * checked (ROUTE_SUPPORTED fails): every read then is of a token the operator chose.
 *
 * Throws 400 UNSUPPORTED_ROUTE, like a quote for an unsupported route, before any chain is read.
 */
export function assertRouteTokens(routes: RouteTable, order: OrderTokens): void {
  const inputKnown = routes.routes.some(
    (route) => route.originChainId === order.originChainId && route.inputToken === order.inputToken,
  );
  const outputKnown = routes.routes.some(
    (route) => route.destinationChainId === order.destinationChainId && route.outputToken === order.outputToken,
  );
  if (inputKnown && outputKnown) return;
  const [parameter, token, side] = inputKnown
    ? ([
        "order.outputToken",
        order.outputToken,
        `the output token of any configured route to chain ${order.destinationChainId}`,
      ] as const)
    : ([
        "order.inputToken",
        order.inputToken,
        `the input token of any configured route from chain ${order.originChainId}`,
      ] as const);
  throw unsupportedRoute(
    routes,
    `${parameter} ${token} is not ${side}; preflight checks only the tokens of configured routes`,
    { parameter },
  );
}
