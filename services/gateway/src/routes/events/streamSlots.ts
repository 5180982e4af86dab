import { randomUUID } from "node:crypto";
import type { Redis } from "@platform/store";

/**
 * How many event streams each API key holds open, over every gateway replica: a sorted set per key
 * in Redis, member = one stream, score = when its lease runs out. A stream renews its lease while
 * it is open and gives it back when it ends; a replica that dies leaves leases that simply expire,
 * so a key is never locked out for longer than one lease.
 *
 * KEYS[1] sse:{<keyId>}   ARGV[1] stream id   ARGV[2] cap   ARGV[3] lease, ms
 * Returns 1 when the stream holds a slot (taken or renewed), 0 when the key holds `cap` already.
 */
const TAKE_SLOT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`;

export interface StreamSlot {
  /** Renews the lease; false when the slot was lost meanwhile (the key's streams were cut back). */
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

export interface StreamSlots {
  /** A slot for one more stream of `keyId`, or undefined when it holds its cap already. */
  take(keyId: string): Promise<StreamSlot | undefined>;
  readonly cap: number;
  readonly leaseMs: number;
}

type WithScript = Redis & {
  takeStreamSlot(key: string, stream: string, cap: number, leaseMs: number): Promise<number>;
};

export function createStreamSlots(redis: Redis, options: { cap: number; leaseMs: number }): StreamSlots {
  // defineCommand sends EVALSHA and falls back to EVAL once.
  if (!("takeStreamSlot" in redis)) redis.defineCommand("takeStreamSlot", { numberOfKeys: 1, lua: TAKE_SLOT });
  const scripted = redis as WithScript;
  const slotKey = (keyId: string) => `sse:{${keyId}}`;
  return {
    cap: options.cap,
    leaseMs: options.leaseMs,
    async take(keyId) {
      const stream = randomUUID();
      const key = slotKey(keyId);
      const taken = await scripted.takeStreamSlot(key, stream, options.cap, options.leaseMs);
      if (taken !== 1) return undefined;
      return {
        renew: async () => (await scripted.takeStreamSlot(key, stream, options.cap, options.leaseMs)) === 1,
        release: async () => void (await redis.zrem(key, stream)),
      };
    },
  };
}
