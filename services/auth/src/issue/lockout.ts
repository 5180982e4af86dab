import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "@platform/store";
import { authKeys } from "../registry/keys.js";
import { fromRegistry } from "../registry/storeErrors.js";
import { addressBucket } from "./addressBucket.js";
import { failureDelayMs, type LockoutPolicy, overBudget } from "./lockoutPolicy.js";

export interface Lockout {
  /** Whether the address spent its failure budget: one read, no write, no wait. */
  overBudget(address: string | undefined): Promise<boolean>;
  /** Counts a failure against the address, then holds the answer back as its failures call for (never past `deadline`). */
  failed(address: string | undefined, deadline: number): Promise<void>;
}

/** Leaves time for the answer to reach the caller before its deadline. */
const DEADLINE_MARGIN_MS = 300;

/** Where a caller without an address counts (only direct gRPC callers: the gateway always sends one). */
const NO_ADDRESS = "none";

/**
 * Brute-force protection for IssueToken by the policy of lockoutPolicy.ts, with one Redis counter
 * per address bucket (`auth:fail:addr:…`, registry/keys.ts) that expires a window after its first
 * failure. Refusals past the budget are not counted, so the counter stops at the budget and the
 * refusal ends on time even under attack.
 */
export function redisLockout(redis: Redis, policy: LockoutPolicy): Lockout {
  const keyOf = (address: string | undefined) => authKeys.failuresOfAddress(addressBucket(address ?? NO_ADDRESS));
  return {
    async overBudget(address) {
      const failures = await fromRegistry(() => redis.get(keyOf(address)));
      return overBudget(Number(failures ?? 0), policy);
    },

    async failed(address, deadline) {
      const key = keyOf(address);
      const [[, failures]] = (await fromRegistry(() =>
        redis.multi().incr(key).pexpire(key, policy.windowMs, "NX").exec(),
      )) as [[unknown, number]];
      const delayMs = Math.min(failureDelayMs(failures, policy), deadline - Date.now() - DEADLINE_MARGIN_MS);
      if (delayMs > 0) await sleep(delayMs);
    },
  };
}
