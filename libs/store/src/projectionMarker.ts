import type { Redis } from "./createRedis.js";

/** Sets KEYS[1] to ARGV[2] only if it still holds ARGV[1]: one round trip, no WATCH. */
const REPLACE_IF_EQUAL = `if redis.call("GET", KEYS[1]) == ARGV[1] then redis.call("SET", KEYS[1], ARGV[2]) return 1 end return 0`;

/**
 * A projection's marker (see superviseProjection in @platform/bus) kept in one Redis key beside
 * the read model, so a flush that loses the read model loses the marker with it.
 */
export function redisProjectionMarker(redis: Redis, key: string) {
  return {
    read: () => redis.get(key),
    async setIfAbsent(value: string): Promise<void> {
      await redis.set(key, value, "NX");
    },
    async replace(expected: string, value: string): Promise<boolean> {
      return (await redis.eval(REPLACE_IF_EQUAL, 1, key, expected, value)) === 1;
    },
  };
}

/** Whether every one of the projections' markers says `complete` (their read models hold at least what they held before any loss). */
export async function projectionsComplete(redis: Redis, markerKeys: readonly string[]): Promise<boolean> {
  const values = await redis.mget(...markerKeys);
  return values.every((value) => value === "complete");
}
