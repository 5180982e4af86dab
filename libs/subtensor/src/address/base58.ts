/**
 * Base58 decoding (Bitcoin alphabet) for the short byte strings of SS58 addresses: the textbook
 * digit-by-digit conversion over a byte buffer. Encoding uses @scure/base (ss58.ts), which is as
 * fast; decoding is not: every address a request names is decoded on the way in, and this one is
 * several times faster on SS58 payloads (measured against @scure/base when it was written:
 * bench/HISTORY.md; base58.test.ts holds the two to the same answers).
 */
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const DIGIT_OF = new Int8Array(128).fill(-1);
for (let digit = 0; digit < ALPHABET.length; digit++) DIGIT_OF[ALPHABET.charCodeAt(digit)] = digit;

/** Throws a SyntaxError naming the position of a character outside the alphabet. */
export function base58Decode(text: string): Uint8Array {
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49 /* "1" */) zeros++;
  // log(58) / log(256) ≈ 0.733 bytes per digit, rounded up.
  const size = Math.floor(((text.length - zeros) * 733) / 1000) + 1;
  const bytes = new Uint8Array(size);
  let length = 0;
  for (let index = zeros; index < text.length; index++) {
    const code = text.charCodeAt(index);
    let carry = code < 128 ? DIGIT_OF[code]! : -1;
    if (carry < 0) throw new SyntaxError(`not a base58 character at position ${index}`);
    let done = 0;
    for (let at = size - 1; (carry !== 0 || done < length) && at >= 0; at--, done++) {
      carry += 58 * bytes[at]!;
      bytes[at] = carry & 0xff;
      carry >>= 8;
    }
    length = done;
  }
  let at = size - length;
  while (at < size && bytes[at] === 0) at++;
  const decoded = new Uint8Array(zeros + size - at);
  decoded.set(bytes.subarray(at), zeros);
  return decoded;
}
