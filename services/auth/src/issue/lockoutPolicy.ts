import { backoffDelay } from "@platform/errors/base";

/** Thresholds of the (key id, client address) counter. */
export interface LockoutLimits {
  /** From this many failures on, answers are slowed down. */
  slowAfter: number;
  /** At this many failures, attempts are refused without a check until the lock expires. */
  lockAfter: number;
}

/**
 * Failures are counted twice, and neither count can shut a key's owner out:
 * - per (key id, client address): slowed, then locked. Key ids are public (the `sub` of every
 *   token), so a count per key id alone would let anyone lock its owner out; a lock here refuses
 *   only the address that failed.
 * - per client address, across key ids: slowed only, never locked. Behind a NAT or a proxy many
 *   clients share an address, and a lock there would shut all of them out.
 * Secrets carry 256 random bits, so these bound the load of guessing rather than its odds.
 */
export interface LockoutPolicy {
  keyAddress: LockoutLimits;
  address: { slowAfter: number };
  /** Failures are counted over this window. */
  windowMs: number;
  /** How long a lock lasts once its threshold is reached. */
  lockMs: number;
  /** The cap on one answer's delay. */
  maxDelayMs: number;
}

/** Failures counted so far in the window. */
export interface FailureCounts {
  keyAddress: number;
  address: number;
}

export interface Assessment {
  locked: boolean;
  /** How long to hold the answer back. */
  delayMs: number;
}

/** The first slowed answer waits this long; each further failure doubles it, up to the cap. */
export const FIRST_DELAY_MS = 200;

/** How an attempt is treated given the failures before it: only the pair locks; the longer delay wins. */
export function assess(counts: FailureCounts, policy: LockoutPolicy): Assessment {
  return {
    locked: counts.keyAddress >= policy.keyAddress.lockAfter,
    delayMs: Math.max(
      delayFor(counts.keyAddress, policy.keyAddress.slowAfter, policy.maxDelayMs),
      delayFor(counts.address, policy.address.slowAfter, policy.maxDelayMs),
    ),
  };
}

export function delayFor(failures: number, slowAfter: number, maxDelayMs: number): number {
  if (failures < slowAfter) return 0;
  return backoffDelay(failures - slowAfter, { firstMs: FIRST_DELAY_MS, maxMs: maxDelayMs });
}
