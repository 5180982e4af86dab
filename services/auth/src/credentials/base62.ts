const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Base62 of a byte string, left-padded to a fixed width so every credential of a kind has the same
 * length (no underscore or dash inside: a double click selects the whole credential).
 */
export function base62(bytes: Uint8Array, width: number): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let text = "";
  while (value > 0n) {
    text = ALPHABET[Number(value % 62n)]! + text;
    value /= 62n;
  }
  return text.padStart(width, "0");
}

export function isBase62(text: string): boolean {
  return /^[0-9A-Za-z]*$/.test(text);
}
