import { formatDecimal, parseDecimal } from "./decimal.js";

/** Digits kept after the point in derived ratios and percentages. */
const RATIO_SCALE = 12;

export function compareDecimalStrings(a: string, b: string): number {
  const left = parseDecimal(a);
  const right = parseDecimal(b);
  const scale = Math.max(left.scale, right.scale);
  const x = left.units * 10n ** BigInt(scale - left.scale);
  const y = right.units * 10n ** BigInt(scale - right.scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** a / b as a decimal string (12 places, toward zero); "0" when b is zero. */
export function ratio(a: string, b: string): string {
  const left = parseDecimal(a);
  const right = parseDecimal(b);
  if (right.units === 0n) return "0";
  // a/b = (la / 10^sa) / (lb / 10^sb) = la * 10^sb / (lb * 10^sa)
  const numerator = left.units * 10n ** BigInt(right.scale + RATIO_SCALE);
  const denominator = right.units * 10n ** BigInt(left.scale);
  return formatDecimal(numerator / denominator, RATIO_SCALE);
}

/** Percent change from `before` to `now` ("-5.03" style, 12 places); undefined when before is zero. */
export function percentChange(before: string, now: string): string | undefined {
  if (parseDecimal(before).units === 0n) return undefined;
  const change = ratio(subtract(now, before), before);
  const { units, scale } = parseDecimal(change);
  return formatDecimal(units * 100n, scale);
}

export function subtract(a: string, b: string): string {
  const left = parseDecimal(a);
  const right = parseDecimal(b);
  const scale = Math.max(left.scale, right.scale);
  return formatDecimal(
    left.units * 10n ** BigInt(scale - left.scale) - right.units * 10n ** BigInt(scale - right.scale),
    scale,
  );
}

/** decimal × decimal, exact. */
export function multiply(a: string, b: string): string {
  const left = parseDecimal(a);
  const right = parseDecimal(b);
  return formatDecimal(left.units * right.units, left.scale + right.scale);
}

/** An integer amount in base units (1e-9) as a whole-unit decimal ("1500000000" -> "1.5"). */
export const fromNano = (amount: string): string => formatDecimal(BigInt(amount), 9);
