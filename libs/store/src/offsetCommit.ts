import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "./createRedis.js";

const POLL_MS = 20;

/**
 * Read-your-writes after publishing an event: waits until the projection's stored offset of the
 * event's partition reaches the event (whichever replica runs that partition). Resolves false at
 * the deadline instead of failing: the event is in Kafka, the truth, and the projection will
 * apply it.
 */
export async function awaitStoredOffset(
  redis: Redis,
  offsetKey: string,
  offset: string,
  deadline: number,
): Promise<boolean> {
  const target = BigInt(offset);
  for (;;) {
    const stored = await redis.get(offsetKey).catch(() => null);
    if (stored !== null && BigInt(stored) >= target) return true;
    if (Date.now() + POLL_MS >= deadline) return false;
    await sleep(POLL_MS);
  }
}
