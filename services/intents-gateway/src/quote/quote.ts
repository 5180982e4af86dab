import { randomBytes } from "node:crypto";
import { invalidArgument, unavailable } from "@platform/errors";
import type { KeyConcurrency } from "@platform/grpc";
import { type Fee, FeeType, type QuoteRequest, type QuoteResponse } from "@platform/proto/intents/v1/intents";
import { addressToBytes32, encodeOrderData, orderDataTypeHash } from "@platform/settler";
import { type Address, bytesToBigInt } from "viem";
import type { IntentChain, IntentChains } from "../chains/intentChains.js";
import { readFillDeadlineBounds, readHead } from "../chains/readChainState.js";
import type { TokenDecimals } from "../chains/tokenDecimals.js";
import { bpsOf, type Priced, priceExactInput, priceExactOutput } from "./feeModel.js";
import { suggestFillDeadline } from "./fillDeadline.js";
import { newQuoteId, type QuoteStore } from "./quoteStore.js";
import { findRoute, type QuotedRoute, type RouteTable } from "./routeTable.js";
import { unsupportedRoute } from "./unsupportedRoute.js";
import { type ValidQuoteRequest, validateQuote } from "./validateQuote.js";

export interface QuoteDependencies {
  routes: RouteTable;
  chains: IntentChains;
  decimals: TokenDecimals;
  quotes: QuoteStore;
  /** FILL_DEADLINE_WINDOW_SECONDS. */
  fillDeadlineWindowSeconds: number;
  now?: () => Date;
  /** The order nonce; random by default so two quotes for one user never collide. */
  nonce?: () => bigint;
  /** How many of these calls one API key may have in progress at once (429 RATE_LIMITED beyond). */
  perKey: KeyConcurrency;
}

const randomNonce = () => bytesToBigInt(randomBytes(32));

/**
 * Prices a route and says what to put into `OnchainCrossChainOrder`: the fee model's output, the
 * suggested fill deadline from both chains' clocks and the settler's bounds, and, when the
 * recipient is known (it defaults to the user), the encoded `orderData` with a fresh nonce. The
 * quote is stored under the caller's API key (`apiKeyId`, "" for direct gRPC calls) so that key's
 * preflight can check it later; nothing is signed or sent.
 */
export async function quote(
  dependencies: QuoteDependencies,
  request: QuoteRequest,
  apiKeyId = "",
): Promise<QuoteResponse> {
  return dependencies.perKey.run(apiKeyId, () => priceQuote(dependencies, request, apiKeyId));
}

async function priceQuote(
  dependencies: QuoteDependencies,
  request: QuoteRequest,
  apiKeyId = "",
): Promise<QuoteResponse> {
  const valid = validateQuote(request);
  const route = routeOf(dependencies.routes, valid);
  const origin = intentChain(dependencies.chains, route.originChainId);
  const destination = intentChain(dependencies.chains, route.destinationChainId);
  // An exact input can be refused before any chain is read; an exact output only once priced.
  if (valid.tradeType === "EXACT_INPUT") checkLimits(route, valid.amount);
  const settler = origin.settler;
  if (settler === undefined)
    throw unavailable("UNAVAILABLE", `no FullSettler is configured on chain ${origin.chainId}`, {
      chainId: origin.chainId,
    });

  const [inputDecimals, outputDecimals, originHead, destinationHead] = await Promise.all([
    dependencies.decimals(origin, route.inputToken),
    dependencies.decimals(destination, route.outputToken),
    readHead(origin),
    readHead(destination),
  ]);
  const decimals = { input: inputDecimals, output: outputDecimals };
  const priced =
    valid.tradeType === "EXACT_INPUT"
      ? priceExactInput(valid.amount, route.fee, decimals)
      : priceExactOutput(valid.amount, route.fee, decimals);
  checkLimits(route, priced.inputAmount);
  const bounds = await readFillDeadlineBounds(origin, settler, originHead.number);

  const now = dependencies.now?.() ?? new Date();
  const fillDeadline = suggestFillDeadline({
    originTimestamp: originHead.timestamp,
    destinationTimestamp: destinationHead.timestamp,
    bounds,
    quoteTtlSeconds: route.quoteTtlSeconds,
    preferredWindowSeconds: dependencies.fillDeadlineWindowSeconds,
    fillTimeEstimateSeconds: route.fillTimeEstimateSeconds,
  });
  const recipient = valid.recipient ?? valid.userAddress;
  const nonce = (dependencies.nonce ?? randomNonce)();
  const orderData =
    recipient === undefined
      ? ""
      : encodeOrderData({
          nonce,
          destinationChainId: BigInt(route.destinationChainId),
          inputToken: addressToBytes32(route.inputToken),
          inputAmount: priced.inputAmount,
          outputToken: addressToBytes32(route.outputToken),
          outputAmount: priced.outputAmount,
          recipient: addressToBytes32(recipient),
        });

  const response: QuoteResponse = {
    quoteId: newQuoteId(),
    originChainId: String(route.originChainId),
    destinationChainId: String(route.destinationChainId),
    inputToken: route.inputToken,
    outputToken: route.outputToken,
    inputAmount: String(priced.inputAmount),
    outputAmount: String(priced.outputAmount),
    // The order states one output amount and the filler delivers exactly that: nothing can slip.
    minOutputAmount: String(priced.outputAmount),
    fees: feesOf(priced, route.inputToken),
    limits: { minInputAmount: String(route.limits.min), maxInputAmount: String(route.limits.max) },
    fillDeadline,
    validUntil: new Date(now.getTime() + route.quoteTtlSeconds * 1_000).toISOString(),
    estimatedFillTimeSeconds: route.fillTimeEstimateSeconds,
    settlement: {
      fullSettler: settler,
      orderDataType: orderDataTypeHash,
      orderData,
      order: {
        originChainId: String(route.originChainId),
        destinationChainId: String(route.destinationChainId),
        inputToken: route.inputToken,
        inputAmount: String(priced.inputAmount),
        outputToken: route.outputToken,
        outputAmount: String(priced.outputAmount),
        recipient: recipient ?? "",
        nonce: String(nonce),
        fillDeadline,
      },
    },
  };
  await dependencies.quotes.save(
    { quote: response, ...(valid.userAddress === undefined ? {} : { userAddress: valid.userAddress }) },
    route.quoteTtlSeconds,
    apiKeyId,
  );
  return response;
}

function routeOf(routes: RouteTable, valid: ValidQuoteRequest): QuotedRoute {
  const route = findRoute(routes, valid);
  if (route !== undefined) return route;
  throw unsupportedRoute(
    routes,
    `no route from ${valid.inputToken} on chain ${valid.originChainId} to ${valid.outputToken} on chain ${valid.destinationChainId}`,
  );
}

function checkLimits(route: QuotedRoute, inputAmount: bigint): void {
  if (inputAmount >= route.limits.min && inputAmount <= route.limits.max) return;
  throw invalidArgument(
    "AMOUNT_OUTSIDE_LIMITS",
    `the input amount ${inputAmount} is outside this route's limits [${route.limits.min}, ${route.limits.max}]`,
    {
      parameter: "amount",
      inputAmount: String(inputAmount),
      minInputAmount: String(route.limits.min),
      maxInputAmount: String(route.limits.max),
    },
  );
}

function intentChain(chains: IntentChains, chainId: number): IntentChain {
  const chain = chains.get(chainId);
  // A route names only validated chains; this guards a chains file edited without the schema.
  if (chain === undefined)
    throw unavailable("UNAVAILABLE", `chain ${chainId} is not configured for intents`, { chainId });
  return chain;
}

function feesOf(priced: Priced, token: Address): { total: Fee; breakdown: Fee[] } {
  const fee = (type: FeeType, amount: bigint): Fee => ({
    type,
    amount: String(amount),
    token,
    bps: bpsOf(amount, priced.inputAmount),
  });
  return {
    total: fee(FeeType.FEE_TYPE_UNSPECIFIED, priced.totalFee),
    breakdown: [fee(FeeType.FEE_TYPE_FILLER, priced.fillerFee), fee(FeeType.FEE_TYPE_GAS, priced.gasFee)],
  };
}
