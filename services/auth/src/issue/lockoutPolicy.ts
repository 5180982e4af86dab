/** Thresholds for one kind of counter (a key id, or a client address). */
export interface LockoutLimits {
  /** From this many failures on, answers are slowed down. */
  slowAfter: number;
  /** At this many failures, attempts are refused without a check until the lock expires. */
  lockAfter: number;
}

export interface LockoutPolicy {
  key: LockoutLimits;
  address: LockoutLimits;
  /** Failures are counted over this window. */
  windowMs: number;
  /** How long a lock lasts once its threshold is reached. */
  lockMs: number;
  /** The cap on one answer's delay. */
  maxDelayMs: number;
}

/** Failures counted so far in the window. */
export interface FailureCounts {
  key: number;
  address: number;
}

export interface Assessment {
  locked: boolean;
  /** How long to hold the answer back. */
  delayMs: number;
}

/** The first slowed answer waits this long; each further failure doubles it, up to the cap. */
export const FIRST_DELAY_MS = 200;

/** How an attempt is treated given the failures before it; the stricter of the two counters wins. */
export function assess(counts: FailureCounts, policy: LockoutPolicy): Assessment {
  return {
    locked: counts.key >= policy.key.lockAfter || counts.address >= policy.address.lockAfter,
    delayMs: Math.max(delayFor(counts.key, policy.key, policy.maxDelayMs), delayFor(counts.address, policy.address, policy.maxDelayMs)),
  };
}

export function delayFor(failures: number, limits: LockoutLimits, maxDelayMs: number): number {
  if (failures < limits.slowAfter) return 0;
  // The exponent is bounded so a long attack cannot overflow to Infinity arithmetic surprises.
  return Math.min(maxDelayMs, FIRST_DELAY_MS * 2 ** Math.min(20, failures - limits.slowAfter));
}
