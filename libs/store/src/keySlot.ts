/**
 * The Redis Cluster slot of a key (0–16383): CRC16 (XMODEM) of the key's hash tag, mod 16384. The
 * tag is the part between the first `{` and the next `}` when that part is non-empty, else the
 * whole key (the Cluster specification's rule). Lets tests prove that the keys of one script or
 * transaction share a slot without a cluster, and find which node owns a key.
 */
export function redisKeySlot(key: string | Buffer): number {
  const bytes = typeof key === "string" ? Buffer.from(key) : key;
  const open = bytes.indexOf(0x7b);
  let hashed = bytes;
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) hashed = bytes.subarray(open + 1, close);
  }
  return crc16(hashed) & 16383;
}

const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
    table[byte] = crc & 0xffff;
  }
  return table;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) ^ TABLE[((crc >> 8) ^ byte) & 0xff]!) & 0xffff;
  return crc;
}

/** The one slot all `keys` hash to; throws naming two keys in different slots. */
export function sharedKeySlot(keys: readonly string[]): number {
  if (keys.length === 0) throw new Error("no keys");
  const slot = redisKeySlot(keys[0]!);
  for (const key of keys) {
    const other = redisKeySlot(key);
    if (other !== slot) throw new Error(`${keys[0]} (slot ${slot}) and ${key} (slot ${other}) are in different slots`);
  }
  return slot;
}
