/**
 * The fee model of a route: `fee = fixed + ceil(inputAmount * bps / 10_000)`, in the input token,
 * and the recipient gets the rest converted to the output token's decimals (rounded down). Rounding
 * always favours the filler, so a quoted order is never under-priced by a base unit and fillers
 * never skip it for that.
 */

export interface RouteFee {
  /** Proportional part, basis points of the input amount. */
  bps: number;
  /** Flat part, base units of the input token. */
  fixed: bigint;
}

export interface Decimals {
  input: number;
  output: number;
}

export interface Priced {
  inputAmount: bigint;
  outputAmount: bigint;
  /** The proportional part (what the filler charges for capital and risk), input token. */
  fillerFee: bigint;
  /** The flat part (the filler's destination gas, passed on), input token. */
  gasFee: bigint;
  totalFee: bigint;
}

const BPS = 10_000n;

const ceilDiv = (numerator: bigint, denominator: bigint) => (numerator + denominator - 1n) / denominator;

/** An amount moved between token decimals; rounds down when decimals are lost. */
export function convertDecimals(amount: bigint, from: number, to: number): bigint {
  if (to >= from) return amount * 10n ** BigInt(to - from);
  return amount / 10n ** BigInt(from - to);
}

export function feeFor(inputAmount: bigint, fee: RouteFee): Pick<Priced, "fillerFee" | "gasFee" | "totalFee"> {
  const fillerFee = ceilDiv(inputAmount * BigInt(fee.bps), BPS);
  return { fillerFee, gasFee: fee.fixed, totalFee: fillerFee + fee.fixed };
}

/** What the recipient gets for `inputAmount`; zero when the fee takes everything. */
export function priceExactInput(inputAmount: bigint, fee: RouteFee, decimals: Decimals): Priced {
  const fees = feeFor(inputAmount, fee);
  const net = inputAmount > fees.totalFee ? inputAmount - fees.totalFee : 0n;
  return { inputAmount, outputAmount: convertDecimals(net, decimals.input, decimals.output), ...fees };
}

/**
 * The least input for which the recipient gets at least `outputAmount`. The closed form can be off
 * by a unit either way because of the rounded-up proportional fee, so it is corrected by stepping;
 * the net amount grows by 0 or 1 per input unit, so the loops end after a step or two.
 */
export function priceExactOutput(outputAmount: bigint, fee: RouteFee, decimals: Decimals): Priced {
  // The least net input (input-token units) that converts to at least outputAmount.
  const neededNet =
    decimals.output >= decimals.input
      ? ceilDiv(outputAmount, 10n ** BigInt(decimals.output - decimals.input))
      : outputAmount * 10n ** BigInt(decimals.input - decimals.output);
  const net = (input: bigint) => input - feeFor(input, fee).totalFee;
  let input = ceilDiv((neededNet + fee.fixed) * BPS, BPS - BigInt(fee.bps));
  while (net(input) < neededNet) input += 1n;
  while (input > 0n && net(input - 1n) >= neededNet) input -= 1n;
  return priceExactInput(input, fee, decimals);
}

/** `part` relative to `whole` in basis points, rounded half up; 0 for an empty whole. */
export function bpsOf(part: bigint, whole: bigint): number {
  if (whole <= 0n) return 0;
  const bps = (part * BPS * 2n + whole) / (whole * 2n);
  return bps > 4_294_967_295n ? 4_294_967_295 : Number(bps);
}
