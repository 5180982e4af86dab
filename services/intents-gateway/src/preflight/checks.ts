import { CheckStatus, type PreflightCheck } from "@platform/proto/intents/v1/intents";
import { zeroAddress } from "viem";
import type { Priced } from "../quote/feeModel.js";
import { judgeFillDeadline } from "../quote/fillDeadline.js";
import type { StoredQuote } from "../quote/quoteStore.js";
import type { QuotedRoute } from "../quote/routeTable.js";
import { isUnreadable, type OrderFacts } from "./orderFacts.js";
import type { ValidOrder } from "./validateOrder.js";

/**
 * The preflight checks, one pure function each: what was found in, a named verdict out. A check
 * whose input is missing (its chain could not be used, no quote was named) is SKIPPED and says why.
 */

export const CHECK_NAMES = [
  "ROUTE_SUPPORTED",
  "AMOUNT_WITHIN_LIMITS",
  "FEE_COVERED",
  "QUOTE_NOT_EXPIRED",
  "QUOTE_MATCHES",
  "FILL_DEADLINE_BOUNDS",
  "BALANCE",
  "ALLOWANCE",
  "NATIVE_GAS",
  "SIMULATION",
] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

/** Below this many seconds above the settler's lower bound, the deadline gets a warning: blocks keep coming. */
export const DEADLINE_WARN_MARGIN_SECONDS = 60;

function check(
  name: CheckName,
  status: CheckStatus,
  message: string,
  expected?: string,
  actual?: string,
): PreflightCheck {
  return {
    name,
    status,
    message,
    ...(expected === undefined ? {} : { expected }),
    ...(actual === undefined ? {} : { actual }),
  };
}

const skipped = (name: CheckName, why: string) => check(name, CheckStatus.CHECK_STATUS_SKIPPED, why);
const isNative = (order: ValidOrder) => order.inputToken === zeroAddress;
const between = (min: bigint | number, max: bigint | number) => `>= ${min} and <= ${max}`;

export function routeSupportedCheck(order: ValidOrder, route: QuotedRoute | undefined): PreflightCheck {
  const actual = `${order.inputToken} on ${order.originChainId} -> ${order.outputToken} on ${order.destinationChainId}`;
  if (route !== undefined)
    return check(
      "ROUTE_SUPPORTED",
      CheckStatus.CHECK_STATUS_PASS,
      "the route is supported",
      "a configured route",
      actual,
    );
  return check(
    "ROUTE_SUPPORTED",
    CheckStatus.CHECK_STATUS_FAIL,
    "no configured route: fillers would not fill this order and it could only be refunded",
    "a configured route",
    actual,
  );
}

export function amountWithinLimitsCheck(order: ValidOrder, route: QuotedRoute | undefined): PreflightCheck {
  if (route === undefined) return skipped("AMOUNT_WITHIN_LIMITS", "the route is not supported");
  const expected = between(route.limits.min, route.limits.max);
  const within = order.inputAmount >= route.limits.min && order.inputAmount <= route.limits.max;
  return within
    ? check(
        "AMOUNT_WITHIN_LIMITS",
        CheckStatus.CHECK_STATUS_PASS,
        "the input amount is within the route's limits",
        expected,
        String(order.inputAmount),
      )
    : check(
        "AMOUNT_WITHIN_LIMITS",
        CheckStatus.CHECK_STATUS_FAIL,
        "the input amount is outside the route's limits",
        expected,
        String(order.inputAmount),
      );
}

/** The output must leave the route's fee to the filler, or no filler will take the order. */
export function feeCoveredCheck(order: ValidOrder, priced: Priced | undefined): PreflightCheck {
  if (priced === undefined) return skipped("FEE_COVERED", "the route is not supported or its tokens could not be read");
  const expected = `<= ${priced.outputAmount}`;
  return order.outputAmount <= priced.outputAmount
    ? check(
        "FEE_COVERED",
        CheckStatus.CHECK_STATUS_PASS,
        `the output leaves the route's fee (${priced.totalFee} of the input token)`,
        expected,
        String(order.outputAmount),
      )
    : check(
        "FEE_COVERED",
        CheckStatus.CHECK_STATUS_FAIL,
        `the output does not leave the route's fee (${priced.totalFee} of the input token) to the filler`,
        expected,
        String(order.outputAmount),
      );
}

export function quoteNotExpiredCheck(
  quoteId: string | undefined,
  stored: StoredQuote | undefined,
  now: Date,
): PreflightCheck {
  if (quoteId === undefined) return skipped("QUOTE_NOT_EXPIRED", "no quoteId was given");
  if (stored === undefined)
    return check(
      "QUOTE_NOT_EXPIRED",
      CheckStatus.CHECK_STATUS_FAIL,
      "unknown quote, or one that expired long ago: ask for a new quote",
      "a known quote",
      quoteId,
    );
  const validUntil = new Date(stored.quote.validUntil);
  const expected = `now <= ${stored.quote.validUntil}`;
  return now.getTime() <= validUntil.getTime()
    ? check("QUOTE_NOT_EXPIRED", CheckStatus.CHECK_STATUS_PASS, "the quote is still valid", expected, now.toISOString())
    : check(
        "QUOTE_NOT_EXPIRED",
        CheckStatus.CHECK_STATUS_FAIL,
        "the quote has expired: ask for a new quote",
        expected,
        now.toISOString(),
      );
}

/** The order must be the quoted one: same route and input, and no more output than quoted. */
export function quoteMatchesCheck(order: ValidOrder, stored: StoredQuote | undefined): PreflightCheck {
  if (stored === undefined) return skipped("QUOTE_MATCHES", "no known quote was given");
  const quoted = stored.quote;
  const differences = [
    String(order.originChainId) === quoted.originChainId ? undefined : "originChainId",
    String(order.destinationChainId) === quoted.destinationChainId ? undefined : "destinationChainId",
    order.inputToken === quoted.inputToken ? undefined : "inputToken",
    order.outputToken === quoted.outputToken ? undefined : "outputToken",
    String(order.inputAmount) === quoted.inputAmount ? undefined : "inputAmount",
    order.outputAmount <= BigInt(quoted.outputAmount) ? undefined : "outputAmount",
  ].filter((field) => field !== undefined);
  const expected = `inputAmount ${quoted.inputAmount}, outputAmount <= ${quoted.outputAmount} on the quoted route`;
  const actual = `inputAmount ${order.inputAmount}, outputAmount ${order.outputAmount}`;
  return differences.length === 0
    ? check("QUOTE_MATCHES", CheckStatus.CHECK_STATUS_PASS, "the order is the quoted one", expected, actual)
    : check(
        "QUOTE_MATCHES",
        CheckStatus.CHECK_STATUS_FAIL,
        `the order differs from the quote in ${differences.join(", ")}`,
        expected,
        actual,
      );
}

/**
 * Against the settler's bounds on the origin's latest block (what `open` enforces), then a warning
 * when the deadline leaves less than the route's fill time on the destination's clock.
 */
export function fillDeadlineBoundsCheck(
  order: ValidOrder,
  facts: OrderFacts | undefined,
  destination: { timestamp: number; fillTimeEstimateSeconds: number } | undefined,
): PreflightCheck {
  if (facts === undefined) return skipped("FILL_DEADLINE_BOUNDS", "the origin chain's settler could not be read");
  const verdict = judgeFillDeadline(
    order.fillDeadline,
    facts.head.timestamp,
    facts.bounds,
    DEADLINE_WARN_MARGIN_SECONDS,
  );
  const expected = between(verdict.earliest, verdict.latest);
  const actual = String(order.fillDeadline);
  if (verdict.status === "fail") {
    return check(
      "FILL_DEADLINE_BOUNDS",
      CheckStatus.CHECK_STATUS_FAIL,
      `the fill deadline is outside the settler's bounds (origin block ${facts.head.number} at ${facts.head.timestamp}: +${facts.bounds.minFillWindow} s to +${facts.bounds.maxFillBuffer} s)`,
      expected,
      actual,
    );
  }
  if (verdict.status === "warn") {
    return check(
      "FILL_DEADLINE_BOUNDS",
      CheckStatus.CHECK_STATUS_WARN,
      `the fill deadline is only ${verdict.marginSeconds} s above the settler's lower bound: open soon or choose a later one`,
      expected,
      actual,
    );
  }
  if (destination !== undefined && order.fillDeadline - destination.timestamp < destination.fillTimeEstimateSeconds) {
    return check(
      "FILL_DEADLINE_BOUNDS",
      CheckStatus.CHECK_STATUS_WARN,
      `the fill deadline leaves less than the route's estimated fill time (${destination.fillTimeEstimateSeconds} s) on the destination's clock`,
      expected,
      actual,
    );
  }
  return check(
    "FILL_DEADLINE_BOUNDS",
    CheckStatus.CHECK_STATUS_PASS,
    "the fill deadline is within the settler's bounds",
    expected,
    actual,
  );
}

export function balanceCheck(order: ValidOrder, facts: OrderFacts | undefined): PreflightCheck {
  if (facts === undefined) return skipped("BALANCE", "the origin chain could not be read");
  const expected = `>= ${order.inputAmount}`;
  if (isUnreadable(facts.balance))
    return check(
      "BALANCE",
      CheckStatus.CHECK_STATUS_FAIL,
      `the input token's balance cannot be read: ${facts.balance.problem}`,
      expected,
    );
  const what = isNative(order) ? "native balance" : "input token balance";
  return facts.balance >= order.inputAmount
    ? check(
        "BALANCE",
        CheckStatus.CHECK_STATUS_PASS,
        `the user's ${what} covers the input`,
        expected,
        String(facts.balance),
      )
    : check(
        "BALANCE",
        CheckStatus.CHECK_STATUS_FAIL,
        `the user's ${what} is short of the input by ${order.inputAmount - facts.balance}`,
        expected,
        String(facts.balance),
      );
}

export function allowanceCheck(
  order: ValidOrder,
  facts: OrderFacts | undefined,
  settler: string | undefined,
): PreflightCheck {
  if (isNative(order)) return skipped("ALLOWANCE", "the input is the native coin, sent as the transaction's value");
  if (facts === undefined || facts.allowance === undefined)
    return skipped("ALLOWANCE", "the origin chain could not be read");
  const expected = `>= ${order.inputAmount}`;
  if (isUnreadable(facts.allowance))
    return check(
      "ALLOWANCE",
      CheckStatus.CHECK_STATUS_FAIL,
      `the allowance cannot be read: ${facts.allowance.problem}`,
      expected,
    );
  return facts.allowance >= order.inputAmount
    ? check(
        "ALLOWANCE",
        CheckStatus.CHECK_STATUS_PASS,
        `the FullSettler ${settler} may pull the input`,
        expected,
        String(facts.allowance),
      )
    : check(
        "ALLOWANCE",
        CheckStatus.CHECK_STATUS_FAIL,
        `approve the FullSettler ${settler} for at least ${order.inputAmount} of the input token first`,
        expected,
        String(facts.allowance),
      );
}

/**
 * Gas for `open` at the current max fee (plus the value, for a native input). A warning, not a
 * failure: the estimate is an upper guess and the wallet may price gas differently.
 */
export function nativeGasCheck(order: ValidOrder, facts: OrderFacts | undefined, fallbackGas: bigint): PreflightCheck {
  if (facts === undefined) return skipped("NATIVE_GAS", "the origin chain could not be read");
  const gas = facts.simulation.ok && facts.simulation.gas !== undefined ? facts.simulation.gas : fallbackGas;
  const needed = gas * facts.maxFeePerGas + (isNative(order) ? order.inputAmount : 0n);
  const expected = `>= ${needed}`;
  return facts.nativeBalance >= needed
    ? check(
        "NATIVE_GAS",
        CheckStatus.CHECK_STATUS_PASS,
        `the user has native coin for about ${gas} gas at ${facts.maxFeePerGas} wei${isNative(order) ? " plus the input" : ""}`,
        expected,
        String(facts.nativeBalance),
      )
    : check(
        "NATIVE_GAS",
        CheckStatus.CHECK_STATUS_WARN,
        `the user may lack native coin for about ${gas} gas at ${facts.maxFeePerGas} wei${isNative(order) ? " plus the input" : ""}`,
        expected,
        String(facts.nativeBalance),
      );
}

export function simulationCheck(facts: OrderFacts | undefined): PreflightCheck {
  if (facts === undefined) return skipped("SIMULATION", "the origin chain's settler could not be used");
  const expected = "open succeeds";
  if (facts.simulation.ok) {
    return check(
      "SIMULATION",
      CheckStatus.CHECK_STATUS_PASS,
      `open succeeds as the user at block ${facts.head.number}`,
      expected,
      facts.simulation.gas === undefined ? "succeeds" : `succeeds, ${facts.simulation.gas} gas`,
    );
  }
  return check(
    "SIMULATION",
    CheckStatus.CHECK_STATUS_FAIL,
    `open reverts as the user at block ${facts.head.number}: ${facts.simulation.revert.text}`,
    expected,
    `reverts with ${facts.simulation.revert.name}`,
  );
}
