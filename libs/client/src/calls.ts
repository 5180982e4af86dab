import {
  type Address,
  decodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  isAddressEqual,
  maxUint256,
  pad,
  zeroAddress,
} from "viem";
import { FULL_ORDER_DATA_TYPE, fullOrderParamsAbi, fullSettlerOpenAbi } from "./callsAbi.js";
import { ClientError } from "./clientError.js";
import { chainOf, findRoute, type ResolvedRoute } from "./deployments.js";
import type { Deployment } from "./deploymentsSchema.js";
import type { components } from "./generated/schema.js";

/*
 * The transactions a quote leads to, encoded here and never by the API (which builds, signs and
 * sends none): an ERC-20 `approve` of the FullSettler where the allowance is short, then
 * `FullSettler.open(order)`. The caller's wallet signs and sends them, in order, from `owner`.
 */

/** One transaction to send: what a wallet's `sendTransaction` takes. */
export interface Call {
  chainId: number;
  to: Address;
  data: Hex;
  /** Native coin sent with it, in wei: the input amount when the input is the native coin, else 0. */
  value: bigint;
}

type Quote = components["schemas"]["Quote"];

/**
 * The parts of a quote answer (`POST /intents/v1/quotes`, the document's `Quote`) the calls are
 * made from: the client's own answer passes as it is.
 */
export type QuoteForCalls = Pick<
  Quote,
  | "originChainId"
  | "destinationChainId"
  | "inputToken"
  | "outputToken"
  | "inputAmount"
  | "outputAmount"
  | "fillDeadline"
> &
  Partial<Pick<Quote, "validUntil">> & {
    settlement:
      | (Pick<NonNullable<Quote["settlement"]>, "fullSettler" | "orderDataType" | "orderData"> &
          Partial<Pick<NonNullable<Quote["settlement"]>, "order">>)
      | null;
  };

export interface AllowanceQuery {
  chainId: number;
  token: Address;
  owner: Address;
  spender: Address;
}

/** Reads an ERC-20 allowance, e.g. with viem: `(q) => publicClient.readContract({address: q.token, abi: erc20Abi, functionName: "allowance", args: [q.owner, q.spender]})`. */
export type ReadAllowance = (query: AllowanceQuery) => Promise<bigint>;

/**
 * What `openCalls` and `buildOpenCalls` take. `approve: "unlimited"` compiles only with
 * `acknowledgeUnlimitedApproval: true` beside it (and is refused at run time without it, for
 * callers without types).
 */
export type OpenCallsInput = OpenCallsOptions & ApprovalChoice;

/** The approval asked for: the order's input (default), or unlimited with its acknowledgement. */
export type ApprovalChoice =
  | {
      /** Approve exactly the order's input amount when the allowance is short (the default). */
      approve?: "exact";
      acknowledgeUnlimitedApproval?: boolean;
    }
  | {
      /**
       * Approve `maxUint256`: the FullSettler may then move all of the token the wallet will ever
       * hold, so it needs `acknowledgeUnlimitedApproval: true` beside it.
       */
      approve: "unlimited";
      /** Says that `approve: "unlimited"` is meant. */
      acknowledgeUnlimitedApproval: true;
    };

export interface OpenCallsOptions {
  quote: QuoteForCalls;
  /** The environment's deployment data, with addresses: the quote is checked against it. */
  deployment: Deployment;
  /** The wallet that will send the calls: the quote's `userAddress`, whose allowance counts. */
  owner: string;
  /**
   * Who must be paid on the destination chain: `owner` when absent. `orderData` names the payee
   * and the API builds it, so a wrong or tampered quote could pay anyone: it must name this one.
   */
  recipient?: string;
  /** The order nonce you asked for, when you chose one: `orderData` must carry it. */
  nonce?: bigint | string;
  /** Seconds since the epoch; `Date.now()` when absent. Only for checking the quote's deadlines. */
  nowSeconds?: number;
}

export type OpenCallsProblem =
  | "NO_ORDER_DATA"
  | "ROUTE_NOT_IN_DEPLOYMENT"
  | "ADDRESSES_UNKNOWN"
  | "SETTLER_MISMATCH"
  | "ORDER_DATA_MISMATCH"
  | "RECIPIENT_MISMATCH"
  | "NONCE_MISMATCH"
  | "DEADLINE_MISMATCH"
  | "UNLIMITED_APPROVAL_NOT_ACKNOWLEDGED"
  | "AMOUNT_OUTSIDE_LIMITS";

/** A quote the calls cannot be made from, or that disagrees with the deployment data or with what you asked for. */
export class OpenCallsError extends ClientError {
  constructor(
    readonly code: OpenCallsProblem,
    message: string,
  ) {
    super(message);
    this.name = "OpenCallsError";
  }
}

/**
 * `approve` (if `allowance` is below the input amount; never for the native coin) then `open`.
 * Throws OpenCallsError when the quote has no `orderData` (it was asked without `userAddress` or
 * `recipient`), when the deployment data does not list its route or names another FullSettler,
 * when `orderData` says something other than the quote's fields, pays another recipient than
 * `recipient` (default `owner`) or carries another nonce than the quote's (or `nonce`), or when
 * the order's deadline is not the quote's or has passed.
 */
export function openCalls(input: OpenCallsInput & { allowance: bigint }): Call[] {
  const { route, settler, order, inputAmount } = checkedOrder(input);
  const chainId = route.origin.chainId;
  const token = getAddress(route.inputToken.address!);
  const open: Call = {
    chainId,
    to: settler,
    data: encodeFunctionData({ abi: fullSettlerOpenAbi, functionName: "open", args: [order] }),
    value: token === zeroAddress ? inputAmount : 0n,
  };
  if (token === zeroAddress || input.allowance >= inputAmount) return [open];
  const amount = input.approve === "unlimited" ? maxUint256 : inputAmount;
  const approve: Call = {
    chainId,
    to: token,
    data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [settler, amount] }),
    value: 0n,
  };
  return [approve, open];
}

/** `openCalls` with the allowance read through the caller's `readAllowance` (not read for the native coin). */
export async function buildOpenCalls(input: OpenCallsInput & { readAllowance: ReadAllowance }): Promise<Call[]> {
  const { route, settler } = checkedOrder(input);
  const token = getAddress(route.inputToken.address!);
  const allowance =
    token === zeroAddress
      ? 0n
      : await input.readAllowance({
          chainId: route.origin.chainId,
          token,
          owner: getAddress(input.owner),
          spender: settler,
        });
  return openCalls({ ...input, allowance });
}

interface CheckedOrder {
  route: ResolvedRoute;
  settler: Address;
  order: { fillDeadline: number; orderDataType: Hex; orderData: Hex };
  inputAmount: bigint;
}

function checkedOrder(input: OpenCallsInput): CheckedOrder {
  const { quote, deployment } = input;
  // Before anything is read: an unacknowledged unlimited approval never gets as far as a call
  // (the types refuse it; a caller without them, or with a cast, is refused here).
  if (input.approve === "unlimited" && (input.acknowledgeUnlimitedApproval as boolean | undefined) !== true)
    throw new OpenCallsError(
      "UNLIMITED_APPROVAL_NOT_ACKNOWLEDGED",
      'approve: "unlimited" lets the FullSettler move every unit of the token this wallet will hold: pass acknowledgeUnlimitedApproval: true if that is meant, or approve the exact amount (the default)',
    );
  const settlement = quote.settlement;
  if (settlement?.orderData == null || settlement.orderData === "")
    throw new OpenCallsError("NO_ORDER_DATA", "the quote has no orderData: ask for it with userAddress or recipient");
  const route = routeOf(quote, deployment);
  const settler = route.origin.fullSettler;
  if (settler === null || route.inputToken.address === null)
    throw new OpenCallsError(
      "ADDRESSES_UNKNOWN",
      `the deployment data of ${deployment.environment} has no addresses for chain ${route.origin.chainId} (deployed with each run: load the file the deployment wrote)`,
    );
  if (!isAddressEqual(getAddress(settler), getAddress(settlement.fullSettler)))
    throw new OpenCallsError(
      "SETTLER_MISMATCH",
      `the quote names FullSettler ${settlement.fullSettler}; the deployment data of chain ${route.origin.chainId} names ${settler}`,
    );
  const inputAmount = BigInt(quote.inputAmount);
  const { minInputAmount, maxInputAmount } = route.route.limits;
  if (inputAmount < BigInt(minInputAmount) || inputAmount > BigInt(maxInputAmount))
    throw new OpenCallsError(
      "AMOUNT_OUTSIDE_LIMITS",
      `the input amount ${inputAmount} is outside the route's limits [${minInputAmount}, ${maxInputAmount}]`,
    );
  const order = {
    fillDeadline: quote.fillDeadline,
    orderDataType: settlement.orderDataType as Hex,
    orderData: settlement.orderData as Hex,
  };
  const params = checkOrderData(order, quote, inputAmount);
  checkPayee(params, input);
  checkDeadlines(quote, input.nowSeconds ?? Math.floor(Date.now() / 1_000));
  return { route, settler: getAddress(settler), order, inputAmount };
}

function routeOf(quote: QuoteForCalls, deployment: Deployment): ResolvedRoute {
  const route = findRoute(deployment, quote);
  if (route !== undefined) return route;
  const unknownAddresses = [quote.originChainId, quote.destinationChainId].some((chainId) =>
    chainOf(deployment, chainId)?.tokens.some((token) => token.address === null),
  );
  throw new OpenCallsError(
    unknownAddresses ? "ADDRESSES_UNKNOWN" : "ROUTE_NOT_IN_DEPLOYMENT",
    `the deployment data of ${deployment.environment} lists no route from ${quote.inputToken} on chain ${quote.originChainId} to ${quote.outputToken} on chain ${quote.destinationChainId}${unknownAddresses ? " with these addresses (its token addresses are written at deploy: load that file)" : ""}`,
  );
}

/** `orderData` is what `open` escrows and pays out: it must say what the quote's fields say. */
function checkOrderData(order: CheckedOrder["order"], quote: QuoteForCalls, inputAmount: bigint): OrderParams {
  if (order.orderDataType.toLowerCase() !== FULL_ORDER_DATA_TYPE)
    throw new OpenCallsError("ORDER_DATA_MISMATCH", `orderDataType ${order.orderDataType} is not FullSettler's`);
  const params = decodedOrderData(order.orderData);
  const asAddress = (word: Hex) => getAddress(`0x${word.slice(-40)}`);
  const mismatches = [
    params.destinationChainId !== BigInt(quote.destinationChainId) && "destinationChainId",
    !isAddressEqual(asAddress(params.inputToken), getAddress(quote.inputToken)) && "inputToken",
    params.inputAmount !== inputAmount && "inputAmount",
    params.outputAmount !== BigInt(quote.outputAmount) && "outputAmount",
    !isAddressEqual(asAddress(params.outputToken), getAddress(quote.outputToken)) && "outputToken",
  ].filter((field): field is string => field !== false);
  if (mismatches.length > 0)
    throw new OpenCallsError("ORDER_DATA_MISMATCH", `orderData disagrees with the quote on ${mismatches.join(", ")}`);
  return params;
}

type OrderParams = ReturnType<typeof decodedOrderData>;

/**
 * Who gets paid and under which nonce: `orderData` against what the caller intends (the quote
 * comes from a server, which could be wrong or impersonated) and against the quote's own `order`.
 */
function checkPayee(params: OrderParams, input: OpenCallsInput): void {
  const intended = getAddress(input.recipient ?? input.owner);
  // An EVM payee is a left-padded address: any other high bytes name someone else.
  if (params.recipient.toLowerCase() !== pad(intended, { size: 32 }).toLowerCase())
    throw new OpenCallsError(
      "RECIPIENT_MISMATCH",
      `orderData pays ${params.recipient}, not the intended recipient ${intended}${input.recipient === undefined ? " (the owner: pass recipient to pay another address)" : ""}`,
    );
  const quoted = input.quote.settlement?.order;
  // Empty when the quote was asked without one (then orderData is absent too).
  if (quoted?.recipient && !isAddressEqual(getAddress(quoted.recipient), intended))
    throw new OpenCallsError("RECIPIENT_MISMATCH", `the quote's order pays ${quoted.recipient}, not ${intended}`);
  const nonces = [quoted?.nonce, input.nonce].filter((nonce) => nonce !== undefined).map((nonce) => BigInt(nonce));
  if (nonces.some((nonce) => nonce !== params.nonce))
    throw new OpenCallsError("NONCE_MISMATCH", `orderData carries nonce ${params.nonce}, not ${nonces.join(" / ")}`);
}

/** `open` takes the quote's fillDeadline: its order must say the same, and neither it nor the quote may have expired. */
function checkDeadlines(quote: QuoteForCalls, nowSeconds: number): void {
  const ordered = quote.settlement?.order?.fillDeadline;
  if (ordered !== undefined && ordered !== quote.fillDeadline)
    throw new OpenCallsError(
      "DEADLINE_MISMATCH",
      `the quote's order has fillDeadline ${ordered}, the quote ${quote.fillDeadline}`,
    );
  if (quote.fillDeadline <= nowSeconds)
    throw new OpenCallsError("DEADLINE_MISMATCH", `the fillDeadline ${quote.fillDeadline} has passed`);
  if (quote.validUntil !== undefined && !(Date.parse(quote.validUntil) / 1_000 > nowSeconds))
    throw new OpenCallsError("DEADLINE_MISMATCH", `the quote expired at ${quote.validUntil}`);
}

function decodedOrderData(orderData: Hex) {
  try {
    return decodeAbiParameters(fullOrderParamsAbi, orderData)[0];
  } catch {
    throw new OpenCallsError("ORDER_DATA_MISMATCH", "orderData is not an ABI-encoded FullOrderParams");
  }
}
