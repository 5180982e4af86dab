import { DecodeError } from "@platform/errors/base";

/**
 * Exact comparison of the decimal strings the chain events carry (prices such as "0.003927757700").
 * Floats would misorder prices that differ beyond 15 significant digits.
 */
const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/** The decimal as an integer scaled by 10^scale (digits beyond the scale are cut). */
export function scaled(value: string, scale: number): bigint {
  const match = DECIMAL.exec(value.trim());
  if (match === null) throw new DecodeError(`not a decimal: ${JSON.stringify(value)}`);
  const [, sign, whole, fraction = ""] = match;
  const digits = BigInt(whole! + fraction.slice(0, scale).padEnd(scale, "0"));
  return sign === "-" ? -digits : digits;
}

const COMPARE_SCALE = 36;

export function compareDecimal(a: string, b: string): number {
  const left = scaled(a, COMPARE_SCALE);
  const right = scaled(b, COMPARE_SCALE);
  return left < right ? -1 : left > right ? 1 : 0;
}

export const maxDecimal = (a: string, b: string): string => (compareDecimal(a, b) >= 0 ? a : b);
export const minDecimal = (a: string, b: string): string => (compareDecimal(a, b) <= 0 ? a : b);
