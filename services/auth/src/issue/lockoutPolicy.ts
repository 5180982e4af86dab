import { backoffDelay } from "@platform/errors/base";

/**
 * Failures are counted per client address (an IPv4 address, an IPv6 /64), across key ids, and
 * nowhere else:
 * - from `slowAfter` failures on, each further failure is held back, doubling up to `maxDelayMs`;
 * - past `budget`, the address is refused without a check (no lookup, no write, no wait) until
 *   its window ends: what one address can make auth and Redis do is bounded, and the counter
 *   stops growing. Behind a NAT many clients share an address, so the budget sits far above any
 *   honest client's mistakes.
 * Nothing is counted per key id: a counter per unknown id would let random ids fill Redis, and
 * one per known id would make a known and an unknown id fail differently (and let a stranger
 * behind the same NAT lock a key's owner out, key ids being public: the `sub` of every token).
 * Only failures wait: the secret is checked first, and a correct one is answered at once.
 * Secrets carry 256 random bits, so all this bounds the load of guessing rather than its odds.
 */
export interface LockoutPolicy {
  address: { slowAfter: number; budget: number };
  /** Failures are counted over this window, from an address's first. */
  windowMs: number;
  /** The cap on one failure's delay. */
  maxDelayMs: number;
}

/** The first slowed failure waits this long; each further failure doubles it, up to the cap. */
export const FIRST_DELAY_MS = 200;

/** Whether an address with this many failures in its window is refused without a check. */
export function overBudget(addressFailures: number, policy: LockoutPolicy): boolean {
  return addressFailures >= policy.address.budget;
}

/** How long a failure's answer is held back, given its address's failures including it. */
export function failureDelayMs(addressFailures: number, policy: LockoutPolicy): number {
  return delayFor(addressFailures, policy.address.slowAfter, policy.maxDelayMs);
}

export function delayFor(failures: number, slowAfter: number, maxDelayMs: number): number {
  if (failures < slowAfter) return 0;
  return backoffDelay(failures - slowAfter, { firstMs: FIRST_DELAY_MS, maxMs: maxDelayMs });
}
