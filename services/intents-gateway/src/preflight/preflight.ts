import { invalidArgument, notFound } from "@platform/errors";
import type { KeyConcurrency } from "@platform/grpc";
import { type AsOf, Finality } from "@platform/proto/common/v1/common";
import { CheckStatus, type PreflightRequest, type PreflightResponse } from "@platform/proto/intents/v1/intents";
import type { IntentChain, IntentChains } from "../chains/intentChains.js";
import { type ChainHead, readHead } from "../chains/readChainState.js";
import type { TokenDecimals } from "../chains/tokenDecimals.js";
import { type Priced, priceExactInput } from "../quote/feeModel.js";
import type { QuoteStore, StoredQuote } from "../quote/quoteStore.js";
import { findRoute, type QuotedRoute, type RouteTable } from "../quote/routeTable.js";
import { parseAddress } from "../validation/fields.js";
import {
  allowanceCheck,
  amountWithinLimitsCheck,
  balanceCheck,
  feeCoveredCheck,
  fillDeadlineBoundsCheck,
  nativeGasCheck,
  quoteMatchesCheck,
  quoteNotExpiredCheck,
  routeSupportedCheck,
  simulationCheck,
} from "./checks.js";
import { readOrderFacts } from "./readOrderFacts.js";
import { assertRouteTokens } from "./routeTokens.js";
import { type ValidOrder, validateOrder } from "./validateOrder.js";

export interface PreflightDependencies {
  routes: RouteTable;
  chains: IntentChains;
  decimals: TokenDecimals;
  quotes: QuoteStore;
  /** OPEN_GAS_FALLBACK: gas assumed for `open` when it cannot be estimated. */
  openGasFallback: bigint;
  now?: () => Date;
  /** How many of these calls one API key may have in progress at once (429 RATE_LIMITED beyond). */
  perKey: KeyConcurrency;
}

/**
 * Runs every check on an order as the user would open it. Checks that need a chain the service
 * cannot use are skipped rather than failing the request; an unreachable node is a 503, since a
 * preflight that silently skipped the chain would look like a pass.
 */
export async function preflight(
  dependencies: PreflightDependencies,
  request: PreflightRequest,
  apiKeyId = "",
): Promise<PreflightResponse> {
  return dependencies.perKey.run(apiKeyId, () => checkOrder(dependencies, request, apiKeyId));
}

async function checkOrder(
  dependencies: PreflightDependencies,
  request: PreflightRequest,
  apiKeyId = "",
): Promise<PreflightResponse> {
  const user = parseAddress(request.userAddress, "userAddress");
  const stored = request.quoteId === undefined ? undefined : await dependencies.quotes.load(request.quoteId, apiKeyId);
  const order = orderOf(request, stored);
  // Before any chain read: the node is never asked about a token no route names.
  assertRouteTokens(dependencies.routes, order);
  const route = findRoute(dependencies.routes, order);
  const origin = dependencies.chains.get(order.originChainId);
  const destination = dependencies.chains.get(order.destinationChainId);
  const settler = origin?.settler;

  const [facts, destinationHead, priced] = await Promise.all([
    origin === undefined || settler === undefined ? undefined : readOrderFacts(origin, settler, user, order),
    destination === undefined ? undefined : readHead(destination),
    route === undefined || origin === undefined || destination === undefined
      ? undefined
      : priceOrder(dependencies.decimals, route, origin, destination, order),
  ]);

  const now = dependencies.now?.() ?? new Date();
  const checks = [
    routeSupportedCheck(order, route),
    amountWithinLimitsCheck(order, route),
    feeCoveredCheck(order, priced),
    quoteNotExpiredCheck(request.quoteId, stored, now),
    quoteMatchesCheck(order, stored),
    fillDeadlineBoundsCheck(
      order,
      facts,
      route && destinationHead
        ? { timestamp: destinationHead.timestamp, fillTimeEstimateSeconds: route.fillTimeEstimateSeconds }
        : undefined,
    ),
    balanceCheck(order, facts),
    allowanceCheck(order, facts, settler),
    nativeGasCheck(order, facts, dependencies.openGasFallback),
    simulationCheck(facts),
  ];
  return {
    ok: checks.every((entry) => entry.status !== CheckStatus.CHECK_STATUS_FAIL),
    checks,
    ...(facts?.orderId === undefined ? {} : { orderId: facts.orderId }),
    asOf: [
      ...(facts === undefined ? [] : [asOfHead(order.originChainId, facts.head)]),
      ...(destinationHead === undefined ? [] : [asOfHead(order.destinationChainId, destinationHead)]),
    ],
  };
}

/** The request's order, or the quote's own when only a quote id was sent. */
function orderOf(request: PreflightRequest, stored: StoredQuote | undefined): ValidOrder {
  if (request.order !== undefined) return validateOrder(request.order);
  if (request.quoteId === undefined)
    throw invalidArgument("INVALID_PARAMETER", "order is required unless quoteId is given", { parameter: "order" });
  if (stored === undefined)
    throw notFound(
      "QUOTE_NOT_FOUND",
      `no quote ${request.quoteId} (unknown, or expired long ago); send the order or ask for a new quote`,
      { quoteId: request.quoteId },
    );
  const quoted = stored.quote.settlement?.order;
  if (quoted === undefined || quoted.recipient === "") {
    throw invalidArgument(
      "INVALID_PARAMETER",
      "the quote was made without a user or recipient, so it has no complete order; send the order",
      { parameter: "order" },
    );
  }
  return validateOrder(quoted, "quote.order");
}

async function priceOrder(
  decimals: TokenDecimals,
  route: QuotedRoute,
  origin: IntentChain,
  destination: IntentChain,
  order: ValidOrder,
): Promise<Priced> {
  const [input, output] = await Promise.all([
    decimals(origin, route.inputToken),
    decimals(destination, route.outputToken),
  ]);
  return priceExactInput(order.inputAmount, route.fee, { input, output });
}

function asOfHead(chainId: number, head: ChainHead): AsOf {
  return {
    chainId: String(chainId),
    blockNumber: String(head.number),
    blockHash: head.hash,
    timestamp: new Date(head.timestamp * 1_000).toISOString(),
    finality: Finality.FINALITY_LATEST,
  };
}
