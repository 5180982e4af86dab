import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/**
 * A signing key as stored in AUTH_SIGNING_KEYS_DIR, one JSON file per key:
 *
 *   { "kid": "ed25519-20260101T000000Z-1a2b", "activeFrom": "2026-01-01T00:00:00Z",
 *     "privateJwk": { "kty": "OKP", "crv": "Ed25519", "x": "…", "d": "…" } }
 *
 * `activeFrom` lets an operator add a key before it signs anything: it is published at once,
 * and signs from then on, by which time every verifier has fetched it.
 */
export interface SigningKeyFile {
  kid: string;
  activeFrom: string;
  privateJwk: { kty: "OKP"; crv: "Ed25519"; x: string; d: string };
}

/** A loaded signing key. */
export interface SigningKey {
  kid: string;
  /** Epoch ms from which it signs. */
  activeFrom: number;
  privateKey: KeyObject;
  /** The public part (RFC 8037), as published. */
  publicJwk: { kty: "OKP"; crv: "Ed25519"; x: string };
}

const BASE64URL_32_BYTES = /^[A-Za-z0-9_-]{43}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const KID_RULE = "kid must be 1 to 64 characters of A-Z a-z 0-9 . _ -";
const X_RULE = "privateJwk.x must be 32 bytes, base64url";
const D_RULE = "privateJwk.d must be 32 bytes, base64url";

const fileSchema = z.object({
  kid: z.string({ error: KID_RULE }).regex(/^[A-Za-z0-9._-]{1,64}$/, { error: KID_RULE }),
  activeFrom: z
    .string({ error: "activeFrom must be an RFC 3339 time" })
    .regex(RFC3339, { error: "activeFrom must be an RFC 3339 time" })
    .refine((value) => Number.isFinite(Date.parse(value)), { error: "activeFrom must be an RFC 3339 time" }),
  privateJwk: z.object(
    {
      kty: z.literal("OKP", { error: 'privateJwk.kty must be "OKP"' }),
      crv: z.literal("Ed25519", { error: 'privateJwk.crv must be "Ed25519"' }),
      x: z.string({ error: X_RULE }).regex(BASE64URL_32_BYTES, { error: X_RULE }),
      d: z.string({ error: D_RULE }).regex(BASE64URL_32_BYTES, { error: D_RULE }),
    },
    { error: "privateJwk must be an Ed25519 OKP JWK with d" },
  ),
});

/**
 * Parses and checks one key file. Error messages name what is wrong, never the key material
 * (they end up in logs and on the console).
 */
export function parseSigningKeyFile(text: string): SigningKey {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error("not valid JSON");
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? "not a signing-key file");
  const { kid, activeFrom, privateJwk } = parsed.data;
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: privateJwk, format: "jwk" });
  } catch {
    throw new Error("privateJwk is not a usable Ed25519 private key");
  }
  // A public half that does not belong to the private one would publish a key nothing verifies with.
  const derived = createPublicKey(privateKey).export({ format: "jwk" });
  if (derived.x !== privateJwk.x) throw new Error("privateJwk.x does not match privateJwk.d");
  return {
    kid,
    activeFrom: Date.parse(activeFrom),
    privateKey,
    publicJwk: { kty: "OKP", crv: "Ed25519", x: privateJwk.x },
  };
}

/** A fresh Ed25519 key; its kid says when it was made, plus randomness to stay unique. */
export function generateSigningKeyFile(activeFrom: Date, now: Date = new Date()): SigningKeyFile {
  const { privateKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  if (jwk.x === undefined || jwk.d === undefined) throw new Error("the Ed25519 key did not export as a JWK");
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return {
    kid: `ed25519-${stamp}-${randomBytes(3).toString("hex")}`,
    activeFrom: activeFrom.toISOString(),
    privateJwk: { kty: "OKP", crv: "Ed25519", x: jwk.x, d: jwk.d },
  };
}

/**
 * Writes `<kid>.json` into `dir` (created 0700 if missing), readable by its owner only, and never
 * over an existing file. Returns the path.
 */
export function writeSigningKeyFile(dir: string, file: SigningKeyFile): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${file.kid}.json`);
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  return path;
}
