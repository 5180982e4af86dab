import { randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";
import { base62, isBase62 } from "./base62.js";

/**
 * Credentials carry a recognisable prefix and a CRC-32 checksum, so a leaked secret is found by
 * secret scanners and a mistyped one is refused before any lookup:
 *
 *   key id         ak_<22 base62: 128 random bits>
 *   key secret     sk_<43 base62: 256 random bits><6 base62: CRC-32 of what precedes>
 *   browser key    pk_<43 base62: 256 random bits><6 base62: CRC-32 of what precedes>
 *                  (the secret of a browser key: publishable, so a page may carry it; it is
 *                  only answered for its key's allowed origins and grants read scopes only)
 *   refresh token  rt_<43 base62: 256 random bits><6 base62: CRC-32 of what precedes>
 */
export type CredentialKind = "keyId" | "secret" | "publishableSecret" | "refreshToken";

const FORMAT: Record<CredentialKind, { prefix: string; randomBytes: number; width: number; checksum: boolean }> = {
  keyId: { prefix: "ak_", randomBytes: 16, width: 22, checksum: false },
  secret: { prefix: "sk_", randomBytes: 32, width: 43, checksum: true },
  publishableSecret: { prefix: "pk_", randomBytes: 32, width: 43, checksum: true },
  refreshToken: { prefix: "rt_", randomBytes: 32, width: 43, checksum: true },
};

const CHECKSUM_WIDTH = 6;

function checksumOf(text: string): string {
  const value = crc32(Buffer.from(text, "utf8")) >>> 0;
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return base62(bytes, CHECKSUM_WIDTH);
}

export function newCredential(kind: CredentialKind): string {
  const format = FORMAT[kind];
  const body = `${format.prefix}${base62(randomBytes(format.randomBytes), format.width)}`;
  return format.checksum ? `${body}${checksumOf(body)}` : body;
}

/** Shape and checksum check, done before any storage lookup: garbage costs nothing. */
export function isWellFormed(kind: CredentialKind, value: string): boolean {
  const format = FORMAT[kind];
  const length = format.prefix.length + format.width + (format.checksum ? CHECKSUM_WIDTH : 0);
  if (value.length !== length || !value.startsWith(format.prefix)) return false;
  const rest = value.slice(format.prefix.length);
  if (!isBase62(rest)) return false;
  if (!format.checksum) return true;
  const body = value.slice(0, value.length - CHECKSUM_WIDTH);
  return checksumOf(body) === value.slice(value.length - CHECKSUM_WIDTH);
}
