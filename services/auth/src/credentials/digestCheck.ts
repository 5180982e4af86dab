import { randomBytes } from "node:crypto";
import { type Pepper, sameDigest } from "./pepper.js";

/** What a stored credential is compared against. */
export interface StoredDigest {
  digest: string;
  pepperId: string;
}

// Compared against when there is nothing stored, so an unknown key id costs the same HMAC and
// comparison as a known one and timing does not tell them apart. Random per process: it can
// never equal a real digest.
const DUMMY_DIGEST = randomBytes(32).toString("hex");

/**
 * True when `value` is the credential behind `stored`. Always computes the HMAC and compares
 * once, whether or not anything is stored or the stored digest was made with another pepper.
 */
export function matchesStoredDigest(pepper: Pepper, value: string, stored: StoredDigest | undefined): boolean {
  const computed = pepper.hmac(value);
  const usable = stored !== undefined && stored.pepperId === pepper.id;
  const same = sameDigest(computed, usable ? stored.digest : DUMMY_DIGEST);
  return usable && same;
}
