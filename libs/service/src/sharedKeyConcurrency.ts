import { randomUUID } from "node:crypto";
import { resourceExhausted, unavailable } from "@platform/errors";
import type { KeyConcurrency } from "@platform/grpc";
import type { Redis } from "@platform/store";

/**
 * A per-key concurrency limit shared by every replica (the in-process one, @platform/grpc's
 * createKeyConcurrency, would let each of N autoscaled replicas run `limit`, so N × limit in all).
 * Each key's calls in progress are a sorted set in Redis (`<prefix>:inflight:<what>:{<keyId>}`,
 * under the service's own key prefix), one member per call scored by its lease's end:
 * a call takes a slot only while fewer than `limit` unexpired leases stand, renews its lease
 * while it runs, and removes it when it ends. A replica that crashes mid-call renews nothing, so
 * its slots free themselves within `leaseMs`. Costs two Redis round trips per call (take, give
 * back); bench/intents/keyConcurrencyCost.ts measures them.
 */
export interface SharedKeyConcurrency extends KeyConcurrency {
  /** Stops renewing (the process is going away); the leases then lapse on their own. */
  close(): void;
}

// KEYS: the key's set. ARGV: now ms, lease end ms, limit, slot id, set TTL ms. 1 if taken.
const TAKE_SLOT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

interface WithScript {
  takeKeySlot(key: string, now: number, leaseEnd: number, limit: number, slot: string, ttlMs: number): Promise<number>;
}

export function sharedKeyConcurrency(options: {
  redis: Redis;
  /** The service's own Redis prefix, which its ACL user may write: `intents-gateway`, `tc`. */
  keyPrefix: string;
  limit: number;
  /** Names the calls in keys and messages: "quotes", "preflight checks". */
  what: string;
  /** How long a slot outlives a replica that stopped renewing it; 30 s by default. */
  leaseMs?: number;
}): SharedKeyConcurrency {
  const { redis, limit, what } = options;
  const leaseMs = options.leaseMs ?? 30_000;
  const commands = redis as Redis & Partial<WithScript>;
  if (typeof commands.takeKeySlot !== "function")
    redis.defineCommand("takeKeySlot", { numberOfKeys: 1, lua: TAKE_SLOT });
  const scripted = redis as Redis & WithScript;
  const family = what.replaceAll(" ", "-");
  const keyOf = (apiKeyId: string) => `${options.keyPrefix}:inflight:${family}:{${apiKeyId}}`;
  const local = new Map<string, number>();
  const renewals = new Set<NodeJS.Timeout>();

  return {
    async run(apiKeyId, work) {
      const key = keyOf(apiKeyId);
      const slot = randomUUID();
      const now = Date.now();
      const taken = await scripted.takeKeySlot(key, now, now + leaseMs, limit, slot, leaseMs * 2).catch(() => {
        throw unavailable(
          "UNAVAILABLE",
          `the ${what} limit cannot be checked (its store does not answer); try again shortly`,
        );
      });
      if (taken !== 1)
        throw resourceExhausted(
          "RATE_LIMITED",
          `at most ${limit} ${what} at once per API key; wait for one to finish`,
          { limit },
        );
      local.set(apiKeyId, (local.get(apiKeyId) ?? 0) + 1);
      // A call longer than a third of its lease renews it, so only a dead replica's slots lapse.
      const renewal = setInterval(
        () => {
          redis
            .multi()
            .zadd(key, "XX", Date.now() + leaseMs, slot)
            .pexpire(key, leaseMs * 2)
            .exec()
            .catch(() => undefined);
        },
        Math.max(100, Math.floor(leaseMs / 3)),
      );
      renewal.unref();
      renewals.add(renewal);
      try {
        return await work();
      } finally {
        clearInterval(renewal);
        renewals.delete(renewal);
        const left = (local.get(apiKeyId) ?? 1) - 1;
        if (left === 0) local.delete(apiKeyId);
        else local.set(apiKeyId, left);
        // If Redis is away the lease lapses by itself; the call's own outcome stands.
        await redis.zrem(key, slot).catch(() => undefined);
      }
    },
    running: (apiKeyId) => local.get(apiKeyId) ?? 0,
    close() {
      for (const renewal of renewals) clearInterval(renewal);
      renewals.clear();
    },
  };
}
