import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";

export interface Pepper {
  /** Names the pepper a stored HMAC was made with (a short hash of it), so peppers can rotate. */
  id: string;
  /** HMAC-SHA256(pepper, value), lowercase hex. */
  hmac(value: string): string;
}

/** Reads the server-side pepper from a file (a Kubernetes Secret); it never lives in the repository. */
export function loadPepper(file: string): Pepper {
  const secret = readFileSync(file);
  const trimmed = Buffer.from(secret.toString("utf8").trim(), "utf8");
  if (trimmed.length < 32) throw new Error(`${file}: the pepper must be at least 32 bytes`);
  return pepperFrom(trimmed);
}

export function pepperFrom(secret: Buffer): Pepper {
  return {
    id: createHash("sha256").update(secret).digest("hex").slice(0, 12),
    hmac: (value) => createHmac("sha256", secret).update(value, "utf8").digest("hex"),
  };
}

/** Constant-time comparison of two hex digests of equal length. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
