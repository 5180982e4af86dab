/**
 * Regular expressions for bounded numbers, so a document can state a range the wire form carries
 * as text (uint256 amounts as decimal strings, words of ABI-encoded data as hex) exactly, as a
 * JSON Schema `pattern`. Written as alternations over the position of the first digit that
 * differs from the bound: no lookaround, which not every JSON Schema tool takes.
 */

const HEX = "[0-9a-fA-F]";

/** Decimal integers in [positive ? 1 : 0, max], without leading zeros (the source of a RegExp, anchored). */
export function decimalAtMostPattern(max: bigint, options: { positive: boolean }): string {
  if (max < 1n) throw new RangeError("max must be at least 1");
  const digits = max.toString();
  const length = digits.length;
  const alternatives: string[] = options.positive ? [] : ["0"];
  if (length > 1) alternatives.push(length === 2 ? "[1-9]" : `[1-9][0-9]{0,${length - 2}}`);
  for (let index = 0; index < length; index += 1) {
    const digit = Number(digits[index]);
    const lowest = index === 0 ? 1 : 0;
    if (digit <= lowest) continue;
    const below = digit - 1 === lowest ? String(lowest) : `[${lowest}-${digit - 1}]`;
    const rest = length - index - 1;
    alternatives.push(`${digits.slice(0, index)}${below}${rest === 0 ? "" : rest === 1 ? "[0-9]" : `[0-9]{${rest}}`}`);
  }
  alternatives.push(digits);
  return `^(?:${alternatives.join("|")})$`;
}

/**
 * A 32-byte ABI word (64 hex digits, any case, unanchored) holding an unsigned number below
 * 2^bits, and not zero when `nonZero`.
 */
export function hexWordPattern(options: { bits: number; nonZero: boolean }): string {
  const nibbles = Math.ceil(options.bits / 4);
  const topBits = options.bits - (nibbles - 1) * 4;
  const top = topBits === 4 ? HEX : `[0-${(2 ** topBits - 1).toString(16)}]`;
  const zeros = (count: number) => (count === 0 ? "" : `0{${count}}`);
  const any = (count: number) => (count === 0 ? "" : `${HEX}{${count}}`);
  if (!options.nonZero) return `${zeros(64 - nibbles)}${top}${any(nibbles - 1)}`;
  // By the position of the first non-zero nibble.
  const alternatives: string[] = [];
  for (let first = 0; first < nibbles; first += 1) {
    // Below 2^topBits and not zero: 1, [1-3], [1-7], or any non-zero hex digit.
    const lead = first > 0 || topBits === 4 ? "[1-9a-fA-F]" : topBits === 1 ? "1" : `[1-${2 ** topBits - 1}]`;
    alternatives.push(`${zeros(64 - nibbles + first)}${lead}${any(nibbles - first - 1)}`);
  }
  return `(?:${alternatives.join("|")})`;
}
