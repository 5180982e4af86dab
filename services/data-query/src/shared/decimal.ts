/**
 * Exact decimal arithmetic on the API's decimal strings (prices "0.003927757700", amounts in
 * integer base units), with BigInt, so no value passes through a float.
 */
export interface Decimal {
  /** The digits without the point. */
  units: bigint;
  /** Digits after the point. */
  scale: number;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

export function parseDecimal(value: string): Decimal {
  const match = DECIMAL.exec(value);
  if (match === null) throw new RangeError(`not a decimal: ${value}`);
  const fraction = match[3] ?? "";
  const units = BigInt(`${match[2]}${fraction}`);
  return { units: match[1] === "-" ? -units : units, scale: fraction.length };
}

/** integer × decimal, rounded toward zero: e.g. nalpha × (TAO per alpha) = rao. */
export function mulIntByDecimal(integer: bigint, decimal: string): bigint {
  const { units, scale } = parseDecimal(decimal);
  return (integer * units) / 10n ** BigInt(scale);
}

/** A decimal string of `units / 10^scale` without trailing zeros ("1.5", "0", "-0.25"). */
export function formatDecimal(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, "0");
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction === "" ? "" : `.${fraction}`}`;
}
