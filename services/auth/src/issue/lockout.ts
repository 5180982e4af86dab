import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "@platform/store";
import { authKeys } from "../registry/keys.js";
import { fromStore } from "../registry/storeErrors.js";
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
  /** Counts a failure against the key id and the address. */
  failed(source: AttemptSource): Promise<void>;
  /** A success clears the key id's failures (not the address's: one good key must not launder an address). */
  succeeded(keyId: string): Promise<void>;
}

/** Leaves time for the answer to reach the caller before its deadline. */
const DEADLINE_MARGIN_MS = 300;

/**
 * Brute-force protection for IssueToken with Redis counters (`auth:fail:…`, registry/keys.ts):
 * each failure increments the key id's and the address's counter, which expire a window after
 * their first failure; reaching a lock threshold re-arms the counter's expiry to the lock's
 * duration. Locked attempts are not counted, so a lock ends on time even under attack.
 */
export function redisLockout(redis: Redis, policy: LockoutPolicy): Lockout {
  const keysOf = (source: AttemptSource) => ({
    key: source.keyId === undefined ? undefined : authKeys.failuresOfKey(source.keyId),
    address: source.address === undefined ? undefined : authKeys.failuresOfAddress(addressKey(source.address)),
  });

  return {
    async admit(source, deadline) {
      const keys = keysOf(source);
      const [key, address] = await fromStore(() =>
        Promise.all([keys.key ? redis.get(keys.key) : null, keys.address ? redis.get(keys.address) : null]),
      );
      const verdict = assess({ key: Number(key ?? 0), address: Number(address ?? 0) }, policy);
      const delayMs = Math.min(verdict.delayMs, deadline - Date.now() - DEADLINE_MARGIN_MS);
      if (delayMs > 0) await sleep(delayMs);
      return { locked: verdict.locked };
    },

    async failed(source) {
      const keys = keysOf(source);
      const counted: [string, number][] = [];
      if (keys.key) counted.push([keys.key, policy.key.lockAfter]);
      if (keys.address) counted.push([keys.address, policy.address.lockAfter]);
      if (counted.length === 0) return;
      await fromStore(async () => {
        const multi = redis.multi();
        for (const [key] of counted) multi.incr(key).pexpire(key, policy.windowMs, "NX");
        const results = (await multi.exec()) ?? [];
        const rearm = redis.multi();
        let locks = 0;
        counted.forEach(([key, lockAfter], index) => {
          // INCR is atomic: exactly one failure sees the threshold, and it starts the lock.
          if (Number(results[index * 2]?.[1]) === lockAfter) {
            rearm.pexpire(key, policy.lockMs);
            locks += 1;
          }
        });
        if (locks > 0) await rearm.exec();
      });
    },

    async succeeded(keyId) {
      await fromStore(() => redis.del(authKeys.failuresOfKey(keyId)));
    },
  };
}

/**
 * The address as a key part: an IP address (v4, v6, with port or zone) is kept readable for
 * operators; anything else is hashed, so a caller-controlled string cannot bloat the keyspace.
 */
export function addressKey(address: string): string {
  return /^[0-9A-Za-z.:%[\]_-]{1,64}$/.test(address) ? address : createHash("sha256").update(address).digest("hex").slice(0, 32);
}
