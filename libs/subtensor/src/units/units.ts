/**
 * Unit conversions and exact decimal formatting for Subtensor values (research data-api §2.1).
 * Everything stays in bigint: amounts are u64 and ratios of them, which overflow a float's 53 bits.
 */

/** TAO has 9 decimals on the chain: 1 TAO = 1e9 rao. Alpha likewise: 1 α = 1e9 nano-α. */
export const RAO_PER_TAO = 1_000_000_000n;
/** EVM balances have 18 decimals: 1 rao = 1e9 wei (`SubtensorEvmBalanceConverter`). */
export const WEI_PER_RAO = 1_000_000_000n;
export const TAO_DECIMALS = 9;
/** Denominator of the chain's u16 ratios: consensus, incentive, dividends, vtrust, take, owner cut. */
export const U16_MAX = 65_535n;
/** Denominator of `TaoWeight` and `CKBurn`. */
export const U64_MAX = 2n ** 64n - 1n;
/**
 * Decimal places of a formatted u16 ratio. One step is 1/65535 ≈ 1.5e-5, so 8 places tell every u16
 * apart; it is also what Taostats shows (take `0.17999542` for the default 11_796).
 */
export const U16_RATIO_DECIMALS = 8;
/** Decimal places of a formatted u64 ratio (`TaoWeight`), enough to tell values apart at 1e-18. */
export const U64_RATIO_DECIMALS = 18;

export function raoToWei(rao: bigint): bigint {
  return rao * WEI_PER_RAO;
}

/** Truncates below one rao, as the chain's converter does for EVM values that are not whole rao. */
export function weiToRao(wei: bigint): bigint {
  return wei / WEI_PER_RAO;
}

/**
 * `value / 10^decimals` as an exact decimal string, trailing fractional zeros (and a bare point)
 * removed: `formatScaled(12345678901234567n, 18)` → `"0.012345678901234567"`, `(1_500_000_000n, 9)` → `"1.5"`.
 */
export function formatScaled(value: bigint, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0)
    throw new RangeError(`decimals must be a non-negative integer, got ${decimals}`);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction === "" ? "" : `.${fraction}`}`;
}

/** The inverse of `formatScaled`; rejects more fractional digits than `decimals` instead of rounding. */
export function parseScaled(text: string, decimals: number): bigint {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (match === null) throw new RangeError(`not a decimal number: ${JSON.stringify(text)}`);
  const [, sign, whole, fraction = ""] = match;
  if (fraction.length > decimals) throw new RangeError(`${text} has more than ${decimals} decimal places`);
  const value = BigInt(whole! + fraction.padEnd(decimals, "0"));
  return sign === "-" ? -value : value;
}

/**
 * `numerator / denominator` truncated to `decimals` places, as a decimal string with trailing zeros
 * trimmed. Truncation (not rounding) keeps the result from ever exceeding the true ratio (a u16 of
 * 65534 never shows as 1).
 */
export function formatRatio(numerator: bigint, denominator: bigint, decimals: number): string {
  if (denominator <= 0n) throw new RangeError("denominator must be positive");
  if (numerator < 0n) throw new RangeError("numerator must not be negative");
  return formatScaled((numerator * 10n ** BigInt(decimals)) / denominator, decimals);
}

/** A chain u16 ratio (score, take, owner cut) as a decimal in [0, 1], truncated to `U16_RATIO_DECIMALS`. */
export function formatU16Ratio(value: number | bigint): string {
  const raw = BigInt(value);
  if (raw < 0n || raw > U16_MAX) throw new RangeError(`not a u16: ${raw}`);
  return formatRatio(raw, U16_MAX, U16_RATIO_DECIMALS);
}

/** A chain u64 ratio (`TaoWeight`, `CKBurn`) as a decimal in [0, 1], truncated to `U64_RATIO_DECIMALS`. */
export function formatU64Ratio(value: bigint): string {
  if (value < 0n || value > U64_MAX) throw new RangeError(`not a u64: ${value}`);
  return formatRatio(value, U64_MAX, U64_RATIO_DECIMALS);
}

/** Rao as TAO, exact (`1_500_000_000n` → `"1.5"`). */
export function formatRaoAsTao(rao: bigint): string {
  return formatScaled(rao, TAO_DECIMALS);
}

/** The root subnet: stable mechanism, price fixed at 1, its alpha is TAO. */
export const ROOT_NETUID = 0;

/** Storage bytes (an identity's name, a token symbol) as text; invalid UTF-8 becomes U+FFFD, never an error. */
export function utf8Text(bytes: Uint8Array): string {
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes);
}
