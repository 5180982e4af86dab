import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "@platform/store";
import { authKeys } from "../registry/keys.js";
import { fromRegistry } from "../registry/storeErrors.js";
import { addressBucket } from "./addressBucket.js";
import { assess, type LockoutPolicy } from "./lockoutPolicy.js";

/** Who an attempt comes from and is for; either may be unknown (a malformed id, no address). */
export interface AttemptSource {
  keyId: string | undefined;
  address: string | undefined;
}

export interface Lockout {
  /**
   * Holds the attempt back as long as the failures before it call for (never past `deadline`),
   * then says whether it is locked out and must fail without a check.
   */
  admit(source: AttemptSource, deadline: number): Promise<{ locked: boolean }>;
  /** Counts a failure against the (key id, address) pair and the address. */
  failed(source: AttemptSource): Promise<void>;
  /** A success clears the pair's failures (not the address's: one good key must not launder an address). */
  succeeded(source: AttemptSource): Promise<void>;
}

/** Leaves time for the answer to reach the caller before its deadline. */
const DEADLINE_MARGIN_MS = 300;

/** Where a caller without an address counts (only direct gRPC callers: the gateway always sends one). */
const NO_ADDRESS = "none";

/**
 * Brute-force protection for IssueToken with Redis counters (`auth:fail:…`, registry/keys.ts),
 * by the policy of lockoutPolicy.ts: each failure increments the (key id, address) pair's counter
 * and the address's, which expire a window after their first failure; the pair reaching its lock
 * threshold re-arms its expiry to the lock's duration. Locked attempts are not counted, so a lock
 * ends on time even under attack.
 */
export function redisLockout(redis: Redis, policy: LockoutPolicy): Lockout {
  const keysOf = (source: AttemptSource) => {
    const address = addressBucket(source.address ?? NO_ADDRESS);
    return {
      pair: source.keyId === undefined ? undefined : authKeys.failuresOfKeyAt(source.keyId, address),
      address: authKeys.failuresOfAddress(address),
    };
  };

  return {
    async admit(source, deadline) {
      const keys = keysOf(source);
      const [pair, address] = await fromRegistry(() =>
        Promise.all([keys.pair ? redis.get(keys.pair) : null, redis.get(keys.address)]),
      );
      const verdict = assess({ keyAddress: Number(pair ?? 0), address: Number(address ?? 0) }, policy);
      const delayMs = Math.min(verdict.delayMs, deadline - Date.now() - DEADLINE_MARGIN_MS);
      if (delayMs > 0) await sleep(delayMs);
      return { locked: verdict.locked };
    },

    async failed(source) {
      const keys = keysOf(source);
      await fromRegistry(async () => {
        const multi = redis.multi();
        multi.incr(keys.address).pexpire(keys.address, policy.windowMs, "NX");
        if (keys.pair) multi.incr(keys.pair).pexpire(keys.pair, policy.windowMs, "NX");
        const results = (await multi.exec()) ?? [];
        // INCR is atomic: exactly one failure sees the threshold, and it starts the lock.
        if (keys.pair && Number(results[2]?.[1]) === policy.keyAddress.lockAfter)
          await redis.pexpire(keys.pair, policy.lockMs);
      });
    },

    async succeeded(source) {
      const { pair } = keysOf(source);
      if (pair) await fromRegistry(() => redis.del(pair));
    },
  };
}
